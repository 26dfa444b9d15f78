package lang

func platform() string { return "windows" }
