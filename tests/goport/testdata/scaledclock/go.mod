module example.com/scaledclock

go 1.24
