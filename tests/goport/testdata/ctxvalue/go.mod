module example.com/ctxvalue

go 1.24
