module example.com/slicestruct

go 1.24
