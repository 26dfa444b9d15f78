// Package hc18 is the Go twin of fuzzfarm/examples/hc18_spdy_write_close.py (HC-18,
// docker/spdystream issue #49, fix PR #50 commit d91d6d1, now moby/spdystream): the idle-aware
// framer's monitor takes the write lock while a writer holding it is blocked on a full
// resetChan.
//
// connection.go holds what the fix leaves alone, at the fix's parent; monitor_buggy.go and
// monitor_fixed.go hold idleAwareFramer.monitor before and at the fix. The framer writes and
// reads 8-byte frames on a real loopback TCP connection (spdy.Framer's encoding stubbed).
// Connection keeps the fields the framer and Serve's read loop touch; Serve's frame queues and
// workers are left out (the scenario's frames carry no stream work), and so is the idle
// timeout's expiry (the timeout is the kubelet's default, 4 h, far beyond the run).
package hc18

import (
	"io"
	"net"
	"sync"
	"time"
)

// Frame is one frame on the wire.
type Frame [8]byte

// Framer stands for spdy.Framer: one frame per Write, io.ReadFull per read.
type Framer struct{ conn net.Conn }

// WriteFrame writes one frame to the socket.
func (f *Framer) WriteFrame(frame Frame) error { _, err := f.conn.Write(frame[:]); return err }

// ReadFrame reads one frame from the socket.
func (f *Framer) ReadFrame() (Frame, error) {
	var b Frame
	_, err := io.ReadFull(f.conn, b[:])
	if err == io.ErrUnexpectedEOF {
		err = io.EOF
	}
	return b, err
}

type idleAwareFramer struct {
	f              *Framer
	conn           *Connection
	writeLock      sync.Mutex
	resetChan      chan struct{}
	setTimeoutChan chan time.Duration
	timeout        time.Duration
}

// upstream: moby/spdystream connection.go:40-47 @e731c8f9f19ffd7e51a469a2de1580c1dfbb4fae
func newIdleAwareFramer(framer *Framer) *idleAwareFramer {
	iaf := &idleAwareFramer{
		f:              framer,
		resetChan:      make(chan struct{}, 2),
		setTimeoutChan: make(chan time.Duration),
	}
	return iaf
}

// upstream: moby/spdystream connection.go:105-119 @e731c8f9f19ffd7e51a469a2de1580c1dfbb4fae
func (i *idleAwareFramer) WriteFrame(frame Frame) error {
	i.writeLock.Lock()
	defer i.writeLock.Unlock()
	if i.resetChan == nil {
		return io.EOF
	}
	err := i.f.WriteFrame(frame)
	if err != nil {
		return err
	}

	i.resetChan <- struct{}{}

	return nil
}

// upstream: moby/spdystream connection.go:121-134 @e731c8f9f19ffd7e51a469a2de1580c1dfbb4fae
func (i *idleAwareFramer) ReadFrame() (Frame, error) {
	frame, err := i.f.ReadFrame()
	if err != nil {
		return Frame{}, err
	}

	// resetChan should never be closed since it is only closed
	// when the connection has closed its closeChan. This closure
	// only occurs after all Reads have finished
	i.resetChan <- struct{}{}

	return frame, nil
}

// Connection keeps what the framer and Serve's read loop use.
type Connection struct {
	conn      net.Conn
	framer    *idleAwareFramer
	closeChan chan bool
}

// upstream: moby/spdystream connection.go:166-211 @e731c8f9f19ffd7e51a469a2de1580c1dfbb4fae
func NewConnection(conn net.Conn, server bool) (*Connection, error) {
	framer := &Framer{conn: conn}
	idleAwareFramer := newIdleAwareFramer(framer)

	session := &Connection{
		conn:      conn,
		framer:    idleAwareFramer,
		closeChan: make(chan bool),
	}
	idleAwareFramer.conn = session
	go idleAwareFramer.monitor()

	return session, nil
}

// Frame queues and workers left out: the read loop and the close of closeChan are upstream's.
// upstream: moby/spdystream connection.go:249-326 @e731c8f9f19ffd7e51a469a2de1580c1dfbb4fae
func (s *Connection) Serve() {
	for {
		_, err := s.framer.ReadFrame()
		if err != nil {
			break
		}
	}
	close(s.closeChan)
}

// upstream: moby/spdystream connection.go:749-751 @e731c8f9f19ffd7e51a469a2de1580c1dfbb4fae
func (s *Connection) SetIdleTimeout(timeout time.Duration) {
	s.framer.setTimeoutChan <- timeout
}
