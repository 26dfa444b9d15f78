// Package gonet: Go's net (TCP on the loopback) and io helpers as a port uses them
// (tests/goport/test_lang.py translates it and checks every test ends as `go test -race` ends it;
// the models are fuzzfarm/goport/gonet.py).
package gonet

import (
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
)

var shared int

// pair: a listener, a dialed connection and its accepted end.
func pair() (net.Listener, net.Conn, net.Conn) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	client, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		panic(err)
	}
	server, err := ln.Accept()
	if err != nil {
		panic(err)
	}
	return ln, client, server
}

// EchoAndEOF: bytes arrive in order; after the peer's CloseWrite, Read gives io.EOF.
func EchoAndEOF() {
	ln, client, server := pair()
	defer ln.Close()
	go func() {
		client.Write([]byte{'h', 'e', 'l'})
		client.Write([]byte{'l', 'o'})
		tc, _ := client.(*net.TCPConn)
		tc.CloseWrite()
	}()
	b := make([]byte, 5)
	n, err := io.ReadFull(server, b)
	m, err2 := server.Read(make([]byte, 4))
	panic(fmt.Sprint(n, " ", err, " ", int(b[0]), int(b[4]), " ", m, " ", err2, " ", err2 == io.EOF))
}

// ReadFullShort: EOF after some bytes is io.ErrUnexpectedEOF; before any, io.EOF.
func ReadFullShort() {
	ln, client, server := pair()
	defer ln.Close()
	client.Write([]byte{1, 2, 3})
	client.Close()
	b := make([]byte, 8)
	n, err := io.ReadFull(server, b)
	n2, err2 := io.ReadFull(server, b)
	panic(fmt.Sprint(n, " ", err == io.ErrUnexpectedEOF, " ", int(b[2]), " ", n2, " ", err2 == io.EOF))
}

// ClosedConn: operations on a closed end fail with net.ErrClosed; a write after one's own
// CloseWrite is a broken pipe; a dial to a closed listener is refused.
func ClosedConn() {
	ln, client, server := pair()
	server.Close()
	_, rerr := server.Read(make([]byte, 1))
	_, werr := server.Write([]byte{1})
	cerr := server.Close()
	tc, _ := client.(*net.TCPConn)
	tc.CloseWrite()
	_, perr := client.Write([]byte{1})
	addr := ln.Addr().String()
	ln.Close()
	_, derr := net.Dial("tcp", addr)
	panic(fmt.Sprint(errors.Is(rerr, net.ErrClosed), errors.Is(werr, net.ErrClosed), errors.Is(cerr, net.ErrClosed),
		strings.Contains(perr.Error(), "broken pipe"), strings.Contains(derr.Error(), "connection refused")))
}

// CopyToDiscard: io.Copy reads until EOF, which is no error.
func CopyToDiscard() {
	ln, client, server := pair()
	defer ln.Close()
	go func() {
		for i := 0; i < 10; i++ {
			client.Write(make([]byte, 10))
		}
		client.Close()
	}()
	n, err := io.Copy(io.Discard, server)
	panic(fmt.Sprint(int(n), " ", err))
}

// WriteHappensBeforeRead: what a goroutine wrote before a Write, a Read of it sees with no
// race (syscall.Write's ReleaseMerge, syscall.Read's Acquire under -race).
func WriteHappensBeforeRead() {
	ln, client, server := pair()
	defer ln.Close()
	go func() {
		shared = 42
		client.Write([]byte{1})
	}()
	server.Read(make([]byte, 1))
	if shared != 42 {
		panic("not seen")
	}
}

// UnorderedAccessRaces: without the message, the two accesses race.
func UnorderedAccessRaces() {
	ln, client, server := pair()
	defer ln.Close()
	done := make(chan bool)
	go func() {
		shared = 7
		done <- true
	}()
	client.Write([]byte{1})
	server.Read(make([]byte, 1))
	_ = shared
	<-done
}

// EOFReadOrders: a read that sees the end of the stream acquires too (syscall.Read's Acquire
// whenever read(2) returned no error). Close releases nothing, but a Write on another
// connection before it did: the end's read orders the write of shared before main's read.
func EOFReadOrders() {
	ln, client, server := pair()
	defer ln.Close()
	ln2, other, _ := pair()
	defer ln2.Close()
	go func() {
		shared = 5
		other.Write([]byte{1})
		client.Close()
	}()
	n, err := server.Read(make([]byte, 1))
	if n != 0 || err != io.EOF || shared != 5 {
		panic("not ordered")
	}
}

// FailedAssertionNamesOpError: a dial error is a *net.OpError, named so by a failing assertion.
func FailedAssertionNamesOpError() {
	_, err := net.Dial("tcp", "127.0.0.1:1")
	var x interface{} = err
	_ = x.(*net.TCPConn)
}
