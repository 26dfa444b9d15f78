module example.com/goerrs

go 1.24
