module example.com/recovers

go 1.24
