module example.com/lang

go 1.24
