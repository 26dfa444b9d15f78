module example.com/typednil

go 1.22
