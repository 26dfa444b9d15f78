module example.com/k8sapp

go 1.24

require (
	k8s.io/apimachinery v0.0.0
	k8s.io/client-go v0.0.0
)

replace (
	k8s.io/apimachinery => ../apimachinery
	k8s.io/client-go => ../client-go
)
