module conformance

go 1.27
