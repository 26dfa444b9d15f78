module example.com/pointers

go 1.24
