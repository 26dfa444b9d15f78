// gofuncs lists every Go function under a directory, with the lines it spans, as JSON on
// stdout: what `fuzzfarm check-port` checks a port's citations against. Stdlib only; run as
// `go run gofuncs.go [-tags a,b] DIR`.
//
// A function is a declaration (`Func`, `Recv.Method`) or a function literal, named the way
// Go's runtime names it in a traceback: `Outer.func1`, `Outer.func1.2` (literals numbered in
// source order within the declaration, nested ones within their enclosing literal).
// A Go twin marks what a function stands for with a comment right above it:
//
//	// upstream: owner/repo path/file.go:FIRST-LAST @commit
//
// which is reported beside the function. Files whose build constraints (file name and
// //go:build line) exclude them under the given tags are skipped, as `go build` would.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"go/ast"
	"go/build"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

type upstream struct {
	Repo   string `json:"repo"`
	Path   string `json:"path"`
	First  int    `json:"first"`
	Last   int    `json:"last"`
	Commit string `json:"commit"`
}

type function struct {
	Name     string    `json:"name"`
	Start    int       `json:"start"`
	End      int       `json:"end"`
	Upstream *upstream `json:"upstream,omitempty"`
	Parent   string    `json:"parent,omitempty"` // the declaration a literal is in
}

type file struct {
	Path    string     `json:"path"`
	Package string     `json:"package"`
	Funcs   []function `json:"funcs"`
}

type failure struct {
	Error string `json:"error"`
}

var upstreamRE = regexp.MustCompile(`upstream:\s+(\S+)\s+(\S+\.go):([0-9]+)(?:-([0-9]+))?\s+@(\S+)`)

func parseUpstream(text string) *upstream {
	m := upstreamRE.FindStringSubmatch(text)
	if m == nil {
		return nil
	}
	first, _ := strconv.Atoi(m[3])
	last := first
	if m[4] != "" {
		last, _ = strconv.Atoi(m[4])
	}
	return &upstream{Repo: m[1], Path: m[2], First: first, Last: last, Commit: m[5]}
}

// recvName is `T` for receivers `T`, `*T`, `T[K]`, `*T[K, V]`.
func recvName(e ast.Expr) string {
	for {
		switch t := e.(type) {
		case *ast.StarExpr:
			e = t.X
		case *ast.ParenExpr:
			e = t.X
		case *ast.IndexExpr:
			e = t.X
		case *ast.IndexListExpr:
			e = t.X
		case *ast.Ident:
			return t.Name
		default:
			return "?"
		}
	}
}

// inits counts the package init functions of each directory's non-test files, in the order the
// walk meets them (lexical, the order go build compiles them in): the runtime names the k-th
// `init.k` (from 0), and its literals `init.k.func1`, ... (log.go's `init.0.func1`).
var inits = map[string]int{}

func listFile(fset *token.FileSet, path, rel string) (file, error) {
	f, err := parser.ParseFile(fset, path, nil, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		return file{}, err
	}
	line := func(p token.Pos) int { return fset.Position(p).Line }
	// a comment group ending on the line just above a function stands for it
	above := map[int]*ast.CommentGroup{}
	for _, cg := range f.Comments {
		above[line(cg.End())+1] = cg
	}
	upstreamAt := func(p token.Pos) *upstream {
		if cg, ok := above[line(p)]; ok {
			return parseUpstream(cg.Text())
		}
		return nil
	}
	out := file{Path: rel, Package: f.Name.Name, Funcs: []function{}}
	for _, decl := range f.Decls {
		fd, ok := decl.(*ast.FuncDecl)
		if !ok || fd.Body == nil {
			continue
		}
		name := fd.Name.Name
		if fd.Recv != nil && len(fd.Recv.List) > 0 {
			name = recvName(fd.Recv.List[0].Type) + "." + name
		} else if name == "init" && !strings.HasSuffix(path, "_test.go") {
			dir := filepath.Dir(path)
			name = "init." + strconv.Itoa(inits[dir])
			inits[dir]++
		}
		up := upstreamAt(fd.Pos())
		if up == nil && fd.Doc != nil {
			up = parseUpstream(fd.Doc.Text())
		}
		out.Funcs = append(out.Funcs, function{Name: name, Start: line(fd.Pos()), End: line(fd.End()), Upstream: up})
		// literals: func1, func2, ... in source order; inside literal funcN: funcN.1, funcN.2, ...
		var walk func(n ast.Node, prefix string, sep string)
		walk = func(n ast.Node, prefix string, sep string) {
			count := 0
			ast.Inspect(n, func(c ast.Node) bool {
				lit, ok := c.(*ast.FuncLit)
				if !ok || c == n {
					return true
				}
				count++
				lname := prefix + sep + strconv.Itoa(count)
				out.Funcs = append(out.Funcs, function{Name: lname, Start: line(lit.Pos()), End: line(lit.End()),
					Upstream: upstreamAt(lit.Pos()), Parent: name})
				walk(lit, lname, ".")
				return false
			})
		}
		walk(fd.Body, name, ".func")
	}
	return out, nil
}

func main() {
	tags := flag.String("tags", "", "comma-separated build tags (as go build -tags)")
	flag.Parse()
	enc := json.NewEncoder(os.Stdout)
	fail := func(format string, a ...any) {
		enc.Encode(failure{Error: fmt.Sprintf(format, a...)})
		os.Exit(2)
	}
	if flag.NArg() != 1 {
		fail("usage: gofuncs [-tags a,b] DIR")
	}
	root := flag.Arg(0)
	if st, err := os.Stat(root); err != nil || !st.IsDir() {
		fail("no such directory: %s", root)
	}
	ctx := build.Default
	ctx.CgoEnabled = false
	if *tags != "" {
		ctx.BuildTags = strings.Split(*tags, ",")
	}
	fset := token.NewFileSet()
	var files []file
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") {
			return nil
		}
		if ok, err := ctx.MatchFile(filepath.Dir(path), name); err != nil || !ok {
			return nil // excluded by its build constraints (or unreadable as Go: skipped as go build would)
		}
		rel, _ := filepath.Rel(root, path)
		f, err := listFile(fset, path, filepath.ToSlash(rel))
		if err != nil {
			return fmt.Errorf("%v", err)
		}
		files = append(files, f)
		return nil
	})
	if err != nil {
		fail("%v", err)
	}
	sort.Slice(files, func(i, j int) bool { return files[i].Path < files[j].Path })
	if files == nil {
		files = []file{}
	}
	enc.Encode(files)
}
