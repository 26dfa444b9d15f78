module example.com/casedump

go 1.22
