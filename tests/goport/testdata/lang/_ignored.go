package lang

func platform() string { return "a file go build never reads" }
