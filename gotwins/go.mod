module fuzzfarm.dev/gotwins

go 1.27
