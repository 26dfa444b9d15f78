package hc18

import (
	"io"
	"net"
	"sync"
	"testing"
	"time"
)

// TestScenario is the Python case's main: a connection with the kubelet's idle timeout; the
// remote end sends two frames and hangs up (closes its write side, still reading) while two
// local streams write two frames each.
func TestScenario(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	local, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer local.Close()
	remote, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer remote.Close()

	conn, _ := NewConnection(local, false)
	conn.SetIdleTimeout(4 * time.Hour)
	go func() { // the remote end: two frames, then it hangs up; it reads what we write
		for i := 0; i < 2; i++ {
			remote.Write(make([]byte, 8))
		}
		remote.(*net.TCPConn).CloseWrite()
		io.Copy(io.Discard, remote)
	}()

	var wg sync.WaitGroup
	wg.Add(2)
	go conn.Serve()
	for n := 0; n < 2; n++ {
		go func() { // one stream copying local data: Stream.Write -> WriteFrame
			defer wg.Done()
			for j := 0; j < 2; j++ {
				if conn.framer.WriteFrame(Frame{}) != nil {
					break // the connection closed under the stream
				}
			}
		}()
	}
	wg.Wait()
}
