module example.com/conform

go 1.24
