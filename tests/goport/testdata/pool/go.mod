module example.com/pool

go 1.24
