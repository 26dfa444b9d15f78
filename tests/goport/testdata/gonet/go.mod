module example.com/gonet

go 1.24
