module example.com/golog

go 1.24
