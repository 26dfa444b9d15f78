package multi

import "example.com/multi/store"

type Server struct {
	counter *store.Counter
	opts    store.Options
}

func NewServer(name string) *Server {
	o := store.Options{Name: name, Size: 4}
	s := &Server{counter: store.New(o), opts: o}
	o.Size = 0 // the copy in s.opts is not changed
	return s
}

func (s *Server) Handle(k string) {
	hit(s.counter, k)
}
