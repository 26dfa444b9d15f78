// goast prints the Go source of one package as JSON for fuzzfarm.goport: every file that builds
// under the given tags, parsed by go/parser and type-checked by go/types, as a generic tree of
// AST nodes ({"K": node type, "L": line, fields...}) in which every expression also carries
// what go/types says of it (the Python translator needs types for value-vs-pointer semantics,
// method receivers, builtins and zero values). Stdlib only; run with `go run goast.go`.
//
// Usage: go run goast.go [-tags a,b] DIR_OR_FILE...
// Output: one line, {"package": NAME, "path": IMPORT_PATH, "files": [...], "deps": [...]} or
// {"error": "file.go:LINE: what"}. When a go.mod lies above the package, its path is the module
// path joined with its directory, and every package of the same module it imports (directly or
// not) is read from source under the same tags and listed in "deps" (same shape, no "deps"),
// each after the packages it imports; anything else is imported from the toolchain.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"go/ast"
	"go/build"
	"go/build/constraint"
	"go/importer"
	"go/parser"
	"go/scanner"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"sort"
	"strings"
)

var (
	fset = token.NewFileSet()
	info = &types.Info{
		Types:      map[ast.Expr]types.TypeAndValue{},
		Defs:       map[*ast.Ident]types.Object{},
		Uses:       map[*ast.Ident]types.Object{},
		Selections: map[*ast.SelectorExpr]*types.Selection{},
		Implicits:  map[ast.Node]types.Object{},
		Instances:  map[*ast.Ident]types.Instance{},
	}
	pkg *types.Package

	modPath, modDir string                                // the go.mod above the package, if any
	srcPkgs                = map[string]*types.Package{}   // module packages read from source
	srcFiles               = map[string][]*ast.File{}      // their files
	srcOrder         []string                              // dependencies first
	tags                   = map[string]bool{}
	stdImporter            = importer.Default()
)

// findModule sets modPath/modDir from the nearest go.mod at or above dir.
func findModule(dir string) {
	for d := dir; ; d = filepath.Dir(d) {
		if b, err := os.ReadFile(filepath.Join(d, "go.mod")); err == nil {
			for _, ln := range strings.Split(string(b), "\n") {
				if f := strings.Fields(ln); len(f) == 2 && f[0] == "module" {
					modPath, modDir = strings.Trim(f[1], `"`), d
					return
				}
			}
			return
		}
		if filepath.Dir(d) == d {
			return
		}
	}
}

// moduleLookup finds the export data of an import as the package's module builds it (`go list
// -export` in the module's directory): its requirements and replace directives, so a package of
// another module (k8s.io/apimachinery, through a local replace or the module cache) type-checks
// as `go build` would. One importer serves the standard library too: two would make two
// distinct "time" packages, and time.Duration would not be time.Duration.
func moduleLookup(path string) (io.ReadCloser, error) {
	cmd := exec.Command(filepath.Join(runtime.GOROOT(), "bin", "go"), "list", "-export", "-f", "{{.Export}}", "--", path)
	cmd.Dir = modDir
	out, err := cmd.Output()
	if err != nil {
		msg := err.Error()
		if ee, ok := err.(*exec.ExitError); ok && len(ee.Stderr) > 0 {
			msg = strings.SplitN(strings.TrimSpace(string(ee.Stderr)), "\n", 2)[0]
		}
		return nil, fmt.Errorf("can't find import: %q: %s", path, msg)
	}
	return os.Open(strings.TrimSpace(string(out)))
}

// srcImporter reads packages of the module from source (the toolchain has no export data for
// them); everything else comes from the toolchain.
type srcImporter struct{}

func (srcImporter) Import(path string) (*types.Package, error) {
	if modPath == "" || (path != modPath && !strings.HasPrefix(path, modPath+"/")) {
		return stdImporter.Import(path)
	}
	if p, ok := srcPkgs[path]; ok {
		if p == nil {
			return nil, fmt.Errorf("import cycle through %s", path)
		}
		return p, nil
	}
	srcPkgs[path] = nil
	dir := filepath.Join(modDir, filepath.FromSlash(strings.TrimPrefix(strings.TrimPrefix(path, modPath), "/")))
	files, name := parseDir([]string{dir}, false)
	if len(files) == 0 {
		return nil, fmt.Errorf("no Go files build in %s", dir)
	}
	conf := types.Config{Importer: srcImporter{}}
	p, err := conf.Check(path, fset, files, info)
	if err != nil {
		return nil, err
	}
	_ = name
	srcPkgs[path], srcFiles[path] = p, files
	srcOrder = append(srcOrder, path)
	return p, nil
}

// parseDir parses the .go files under paths that build under the tags (with tests when asked),
// checking they are one package. Fails (exits) on a parse error.
func parseDir(args []string, withTests bool) ([]*ast.File, string) {
	var paths []string
	seen := map[string]bool{}
	add := func(p string) { // a file named twice (or a file and its directory) is read once
		if !seen[filepath.Clean(p)] {
			seen[filepath.Clean(p)] = true
			paths = append(paths, filepath.Clean(p))
		}
	}
	for _, arg := range args {
		st, err := os.Stat(arg)
		if err != nil {
			if pe, ok := err.(*os.PathError); ok {
				err = pe.Err
			}
			failDo("name Go files or a Go package directory that exist", "%s: %v", arg, err)
		}
		if st.IsDir() {
			ents, err := os.ReadDir(arg)
			if err != nil {
				failDo("name a Go package directory this user can read", "%s: %v", arg, err)
			}
			for _, e := range ents {
				if strings.HasSuffix(e.Name(), ".go") && !e.IsDir() && (withTests || !strings.HasSuffix(e.Name(), "_test.go")) {
					add(filepath.Join(arg, e.Name()))
				}
			}
		} else if !strings.HasSuffix(arg, ".go") {
			failDo("name .go files or a Go package directory (go build takes only .go files)", "%s: not a .go file", arg)
		} else {
			add(arg)
		}
	}
	sort.Strings(paths)
	for _, p := range paths[min(1, len(paths)):] {
		// one package is one directory (go build: "named files must all be in one directory")
		if d0, d := filepath.Dir(paths[0]), filepath.Dir(p); d != d0 {
			failDo("name one package: a directory, or .go files of one directory", "%s and %s: files of two directories", paths[0], p)
		}
	}
	if len(paths) == 0 {
		failDo("name the directory of a Go package, or its .go files", "%s: no .go files", strings.Join(args, " "))
	}
	var files []*ast.File
	name := ""
	for _, p := range paths {
		// go build's own file selection first: a file it leaves out (another GOOS's, an old
		// Go release's, a _name.go) is not read at all, as go build does not read it
		match, merr := buildContext().MatchFile(filepath.Dir(p), filepath.Base(p))
		if merr == nil && !match {
			continue
		}
		f, err := parser.ParseFile(fset, p, nil, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			msg := err.Error()
			if list, ok := err.(scanner.ErrorList); ok && len(list) > 0 {
				msg = fmt.Sprintf("%s:%d: %s", filepath.Base(list[0].Pos.Filename), list[0].Pos.Line, list[0].Msg)
			}
			fail("%s", firstLine(msg, p))
		}
		if merr != nil {
			checkBuildLine(f) // a bad //go:build line, with its line
			fail("%s: %v", filepath.Base(p), merr)
		}
		for _, im := range f.Imports {
			if im.Path.Value == `"C"` {
				failDo("C code has no gosim meaning: port the functions that call C by hand (docs/HARNESSES.md#4-port-the-go-code)", "%s: import \"C\" (cgo): not supported", where(im.Pos()))
			}
		}
		files = append(files, f)
	}
	for _, f := range files {
		if name == "" || strings.TrimSuffix(name, "_test") != name {
			name = f.Name.Name // the package's own name wins over an external test package's
		}
	}
	for _, f := range files {
		if f.Name.Name == name+"_test" {
			// Go builds this (an external test package), so the advice is its own, not "fix the Go"
			failAdvised("%s: package %s (an external test package) is not supported; make the file package %s (drop its import of the package and the %s. qualifiers) and run again",
				where(f.Package), f.Name.Name, name, name)
		}
		if f.Name.Name != name {
			fail("%s: package %s, but the other files are package %s: translate one package at a time",
				where(f.Package), f.Name.Name, name)
		}
	}
	return files, name
}

func fail(format string, args ...any) {
	failDo("", format, args...)
}

// failDo is fail with what the user should do; fail's default (read_go's) is "fix the Go".
func failDo(todo, format string, args ...any) {
	m := map[string]string{"error": fmt.Sprintf(format, args...)}
	if todo != "" {
		m["todo"] = todo
	}
	out, _ := json.Marshal(m)
	fmt.Println(string(out))
	os.Exit(0)
}

// failAdvised is fail for an error whose text already says what to do: the caller adds no advice.
func failAdvised(format string, args ...any) {
	out, _ := json.Marshal(map[string]any{"error": fmt.Sprintf(format, args...), "advised": true})
	fmt.Println(string(out))
	os.Exit(0)
}

func where(p token.Pos) string {
	pos := fset.Position(p)
	return fmt.Sprintf("%s:%d", fileName(pos.Filename), pos.Line)
}

var rootDir string // the directory of the package named on the command line

// fileName is how a file is cited: its name, with its directory below the package's for a
// package of the same module (cache/cache.go), so a line names one file.
func fileName(path string) string {
	if rootDir != "" {
		if rel, err := filepath.Rel(rootDir, path); err == nil && !strings.HasPrefix(rel, "..") {
			return filepath.ToSlash(rel)
		}
	}
	return filepath.Base(path)
}

// buildContext is go test -race's file selection (go/build) with the given tags on: //go:build and
// // +build lines, GOOS/GOARCH file name suffixes, release tags (go1.21), files starting with
// _ or . left out. cgo counts as enabled, so a cgo file is refused (parseDir) rather than left
// out in favour of a !cgo variant.
func buildContext() *build.Context {
	ctx := build.Default
	ctx.CgoEnabled = true
	ctx.BuildTags = nil
	for t := range tags {
		ctx.BuildTags = append(ctx.BuildTags, t)
	}
	// the port stands for `go test -race` (its race detector is on from the test's first
	// statement), whose build has the race tag on: a //go:build race file is in, a !race one out
	ctx.BuildTags = append(ctx.BuildTags, "race")
	sort.Strings(ctx.BuildTags)
	return &ctx
}

// checkBuildLine fails with the file and line of a //go:build line that does not parse.
func checkBuildLine(f *ast.File) {
	for _, cg := range f.Comments {
		if cg.Pos() > f.Package {
			break
		}
		for _, c := range cg.List {
			if constraint.IsGoBuild(c.Text) {
				if _, err := constraint.Parse(c.Text); err != nil {
					fail("%s: bad //go:build line: %v", where(c.Pos()), err)
				}
				return
			}
		}
	}
}

// zero describes a type's zero value for the translator.
func zero(t types.Type) map[string]any {
	switch u := t.(type) {
	case *types.Named:
		obj := u.Obj()
		if obj.Pkg() != nil && obj.Pkg().Path() == "sync" {
			return map[string]any{"k": "sync", "name": obj.Name()}
		}
		if obj.Pkg() != nil && obj.Pkg().Path() == "sync/atomic" {
			return map[string]any{"k": "atomic", "name": obj.Name()}
		}
		if _, ok := u.Underlying().(*types.Struct); ok {
			if obj.Pkg() != pkg {
				return map[string]any{"k": "foreign", "name": obj.Pkg().Path() + "." + obj.Name()}
			}
			return map[string]any{"k": "struct", "name": obj.Name()}
		}
		return zero(u.Underlying())
	case *types.Alias:
		return zero(types.Unalias(u))
	case *types.Basic:
		switch {
		case u.Info()&types.IsBoolean != 0:
			return map[string]any{"k": "bool"}
		case u.Info()&types.IsString != 0:
			return map[string]any{"k": "string"}
		case u.Info()&types.IsFloat != 0:
			return map[string]any{"k": "float"}
		case u.Info()&types.IsInteger != 0:
			return map[string]any{"k": "int"}
		}
		return map[string]any{"k": "nil"}
	case *types.Struct:
		if u.NumFields() == 0 {
			return map[string]any{"k": "nil"} // struct{}: no data, every value equal (None)
		}
		return map[string]any{"k": "anonstruct"}
	case *types.Array:
		// an array is a value: N elements, each its element type's zero (a fresh struct each)
		return map[string]any{"k": "array", "n": u.Len(), "elem": zero(u.Elem())}
	}
	return map[string]any{"k": "nil"}
}

// kind is the underlying kind of a type, as the translator branches on it.
func kind(t types.Type) string {
	if n, ok := types.Unalias(t).(*types.Named); ok && n.Obj().Pkg() != nil {
		switch n.Obj().Pkg().Path() {
		case "sync", "sync/atomic", "time", "context", "testing":
			return n.Obj().Pkg().Path() + "." + n.Obj().Name()
		}
	}
	switch u := t.Underlying().(type) {
	case *types.Struct:
		if _, named := types.Unalias(t).(*types.Named); !named && u.NumFields() == 0 {
			return "empty" // struct{}
		}
		return "struct"
	case *types.Pointer:
		if kind(u.Elem()) == "struct" {
			return "ptrstruct"
		}
		return "pointer"
	case *types.Map:
		return "map"
	case *types.Chan:
		return "chan"
	case *types.Slice:
		return "slice"
	case *types.Array:
		return "array"
	case *types.Signature:
		return "func"
	case *types.Interface:
		return "interface"
	case *types.Tuple:
		return "tuple"
	case *types.Basic:
		if u.Info()&types.IsString != 0 {
			return "string"
		}
		if u.Info()&types.IsInteger != 0 {
			return "int"
		}
		if u.Info()&types.IsFloat != 0 {
			return "float"
		}
		if u.Info()&types.IsBoolean != 0 {
			return "bool"
		}
		if u.Kind() == types.UntypedNil {
			return "nil"
		}
		return "basic"
	}
	return "other"
}

var posType = reflect.TypeOf(token.Pos(0))
var tokType = reflect.TypeOf(token.Token(0))

func objInfo(o types.Object) map[string]any {
	m := map[string]any{"id": fmt.Sprintf("%d", o.Pos()), "name": o.Name()}
	if o.Pkg() != nil {
		m["pkg"] = o.Pkg().Path()
		m["local"] = o.Pkg() == pkg
	}
	switch v := o.(type) {
	case *types.Var:
		m["k"] = "var"
		if v.IsField() {
			m["k"] = "field"
		} else if v.Parent() == pkg.Scope() {
			m["k"] = "global"
		}
	case *types.Func:
		m["k"] = "func"
		if sig, ok := v.Type().(*types.Signature); ok && sig.Recv() != nil {
			m["k"] = "method"
			_, m["ptrrecv"] = sig.Recv().Type().(*types.Pointer)
		}
	case *types.TypeName:
		m["k"] = "type"
	case *types.PkgName:
		m["k"] = "pkgname"
		m["pkg"] = v.Imported().Path()
	case *types.Const:
		m["k"] = "const"
		m["val"] = v.Val().ExactString()
	case *types.Builtin:
		m["k"] = "builtin"
	case *types.Nil:
		m["k"] = "nil"
	}
	return m
}

func encode(v reflect.Value) any {
	if !v.IsValid() {
		return nil
	}
	switch v.Kind() {
	case reflect.Interface, reflect.Pointer:
		if v.IsNil() {
			return nil
		}
		if obj, ok := v.Interface().(*ast.Object); ok && obj != nil {
			return nil // the old resolver's objects: go/types has the real ones
		}
		if v.Kind() == reflect.Interface {
			return encode(v.Elem())
		}
		if sc, ok := v.Interface().(*ast.Scope); ok && sc != nil {
			return nil
		}
		node, isNode := v.Interface().(ast.Node)
		m := map[string]any{"K": v.Elem().Type().Name()}
		if isNode {
			m["L"] = fset.Position(node.Pos()).Line
			m["F"] = fileName(fset.Position(node.Pos()).Filename)
		}
		e := v.Elem()
		for i := 0; i < e.NumField(); i++ {
			f := e.Type().Field(i)
			if f.Type == posType && f.Name == "Ellipsis" {
				m["Ellipsis"] = e.Field(i).Int() != 0 // f(xs...)
				continue
			}
			if f.Type == posType || f.Name == "Obj" || f.Name == "Scope" || f.Name == "Unresolved" ||
				f.Name == "Comments" || f.Name == "Doc" || f.Name == "Comment" || f.Name == "Imports" {
				continue
			}
			m[f.Name] = encode(e.Field(i))
		}
		if expr, ok := node.(ast.Expr); ok {
			if tv, ok := info.Types[expr]; ok && tv.Type != nil {
				orig := tv.Type
				tv.Type = sub(tv.Type) // inside a generic function's instance: its type arguments
				if subst != nil && tv.IsType() && isTypeParam(orig) {
					m["TParam"] = true // T itself: a conversion T(x), a literal T{...}
				}
				m["T"] = types.TypeString(tv.Type, types.RelativeTo(pkg))
				m["U"] = kind(tv.Type)
				if tv.IsType() {
					m["IsType"] = true
					m["Z"] = zero(tv.Type)
					m["Cat"] = category(tv.Type)
					m["Q"] = qualified(tv.Type)
					if b := boxType(tv.Type); b != nil {
						m["NamedM"] = b // a type whose values are boxed in an interface
					}
					if it, ok := tv.Type.Underlying().(*types.Interface); ok {
						var names []string
						for i := 0; i < it.NumMethods(); i++ {
							names = append(names, it.Method(i).Name())
						}
						sort.Strings(names)
						m["IMethods"] = names
					}
				}
				if tv.Value != nil {
					m["Const"] = tv.Value.ExactString()
				} else if w, unsigned := intWidth(tv.Type); w > 0 {
					// a sized integer (not int or int64): its arithmetic and conversions wrap
					m["IW"] = w
					if unsigned {
						m["IUns"] = true
					}
				}
				if _, ok := tv.Type.Underlying().(*types.Interface); ok {
					m["Q"] = qualified(tv.Type) // named in an interface conversion panic
				}
				// the zero value a receive or a map read gives (of the element: the
				// expression's own type is a tuple in a comma-ok assignment)
				switch x := expr.(type) {
				case *ast.UnaryExpr:
					if c, ok := sub(info.Types[x.X].Type).Underlying().(*types.Chan); ok {
						m["VZ"] = zero(c.Elem())
					}
				case *ast.IndexExpr:
					if mt, ok := sub(info.Types[x.X].Type).Underlying().(*types.Map); ok {
						m["VZ"] = zero(mt.Elem())
					}
				}
				if tv.Addressable() {
					m["Addr"] = true
				}
				if mt, ok := tv.Type.Underlying().(*types.Map); ok {
					m["KU"] = kind(mt.Key()) // an interface-keyed map: its struct keys compare by value (translate.map_key)
				}
				if ar, ok := tv.Type.Underlying().(*types.Array); ok {
					m["ALen"] = ar.Len() // an array's length, part of its type
					m["EZ"] = zero(ar.Elem())
				}
				if b, ok := boxed[expr]; ok {
					m["Box"] = b // a named non-struct value with methods put in an interface
				}
				if cv, ok := assignConvs[expr]; ok {
					m["Conv"] = cv // a multi-value call's results converted to interfaces where assigned
				}
				if tn, ok := typedNilAt[expr]; ok {
					m["TypedNil"] = tn // a value that may be nil put in an interface
				}
				if sl, ok := tv.Type.Underlying().(*types.Slice); ok {
					if tv.IsType() {
						m["EZ"] = zero(sl.Elem()) // make(T, n) of a named slice type: its elements' zero
					}
					// what Go's growslice needs to pick the new capacity of an append
					// (a generic function's instance has its type arguments here; a size that still
					// depends on a type parameter is left out)
					if es, ok := sizeof(sl.Elem()); ok {
						m["ES"] = es
					}
					m["NS"] = !hasPointers(sl.Elem())
					m["EU"] = kind(sl.Elem()) // "struct": append and copy copy the values
					m["EZ"] = zero(sl.Elem()) // a grown array's elements past the length: s[:cap(s)] reads them
				}
				if p, ok := tv.Type.Underlying().(*types.Pointer); ok {
					m["Elem"] = kind(p.Elem())
					m["PT"] = types.TypeString(p.Elem(), types.RelativeTo(pkg)) // the pointee: an elided &T{...} of a []PA literal (type PA = *T)
				}
			}
		}
		if id, ok := node.(*ast.Ident); ok {
			if o := info.Defs[id]; o != nil {
				m["Def"] = objInfo(o)
				m["DZ"] = zero(sub(o.Type()))
				m["DU"] = kind(sub(o.Type()))
			} else if o := info.Uses[id]; o != nil {
				m["Use"] = objInfo(o)
				if _, ok := m["U"]; !ok {
					m["U"] = kind(sub(o.Type()))
				}
			}
			if in, ok := info.Instances[id]; ok {
				if fn, ok := info.Uses[id].(*types.Func); ok {
					if n, ok := instIndex(fn.Origin(), in.TypeArgs); ok {
						m["InstN"] = n // a generic function's instance: its own translation (stenciled)
					} else {
						m["InstN"] = -1
					}
				}
			}
		}
		if sel, ok := node.(*ast.SelectorExpr); ok {
			if s := info.Selections[sel]; s != nil {
				k := map[types.SelectionKind]string{types.FieldVal: "field", types.MethodVal: "method", types.MethodExpr: "methodexpr"}[s.Kind()]
				m["SelK"] = k
				m["Indirect"] = s.Indirect()
				if isTypeParam(derefType(s.Recv())) {
					m["TPRecv"] = true // a method of a type parameter's value: refused (its method set is the instantiation's)
				}
				m["RecvU"] = kind(sub(s.Recv()))
				if n, ok := types.Unalias(derefType(s.Recv())).(*types.Named); ok && n.Obj().Pkg() == pkg && len(s.Index()) > 1 {
					// (a standard type's model flattens what it embeds: testing.T's common)
					// a promoted field or method: the embedded fields walked to reach it
					m["Path"] = embedPath(s.Recv(), s.Index()[:len(s.Index())-1])
				}
				if fn, ok := s.Obj().(*types.Func); ok {
					sig := fn.Type().(*types.Signature)
					_, m["PtrRecv"] = sig.Recv().Type().(*types.Pointer)
					if n, ok := types.Unalias(derefType(sig.Recv().Type())).(*types.Named); ok && n.Obj().Pkg() != nil {
						m["RecvType"] = n.Obj().Pkg().Path() + "." + n.Obj().Name()
					}
				}
			}
		}
		if ts, ok := node.(*ast.TypeSpec); ok {
			m["Alias"] = ts.Assign.IsValid() // type A = B: another name for B
			if o := info.Defs[ts.Name]; o != nil {
				m["U"] = kind(o.Type())
				if _, isStruct := o.Type().Underlying().(*types.Struct); isStruct {
					m["Promoted"] = promoted(o.Type())
				}
			}
		}
		if fd, ok := node.(*ast.FuncDecl); ok && fd.Type.TypeParams != nil && subst == nil {
			// a generic function is translated once per instantiation (stenciled): each instance
			// is the declaration encoded again with its type parameters replaced by the type
			// arguments, so every type-dependent rule sees concrete types; the generic body
			// itself is not printed (Go compiles no code for it either)
			m["Body"] = nil
			var insts []any
			if fn, ok := info.Defs[fd.Name].(*types.Func); ok {
				for i, in := range instances[fn] {
					subst = in.subst
					im := encode(v).(map[string]any)
					subst = nil
					im["InstN"], im["InstKey"] = i, in.key
					insts = append(insts, im)
				}
			}
			m["Insts"] = insts
		}
		if cc, ok := node.(*ast.CaseClause); ok {
			if o := info.Implicits[cc]; o != nil {
				m["Implicit"] = objInfo(o)
			}
		}
		return m
	case reflect.Struct:
		return nil
	case reflect.Slice:
		out := make([]any, v.Len())
		for i := range out {
			out[i] = encode(v.Index(i))
		}
		return out
	case reflect.String:
		return v.String()
	case reflect.Bool:
		return v.Bool()
	case reflect.Int:
		if v.Type() == tokType {
			return token.Token(v.Int()).String()
		}
		return v.Int()
	}
	if v.Type() == tokType {
		return token.Token(v.Int()).String()
	}
	return fmt.Sprint(v.Interface())
}

// intWidth: the bits of a sized integer type other than int and int64 (int8 ... uint64, uint,
// uintptr) and whether it is unsigned; 0 for any other type. The port wraps their arithmetic at
// that width (a Python int never overflows); int and int64 are left alone (docs/PORT.md).
func intWidth(t types.Type) (int, bool) {
	b, ok := t.Underlying().(*types.Basic)
	if !ok || b.Info()&types.IsInteger == 0 || b.Info()&types.IsUntyped != 0 {
		return 0, false
	}
	switch b.Kind() {
	case types.Int, types.Int64:
		return 0, false
	}
	return int(types.SizesFor("gc", runtime.GOARCH).Sizeof(b) * 8), b.Info()&types.IsUnsigned != 0
}

// embedPath names the embedded fields an index path walks from t: [{"name", "ptr"}...].
func embedPath(t types.Type, index []int) []any {
	var out []any
	for _, i := range index {
		st := derefType(t).Underlying().(*types.Struct)
		f := st.Field(i)
		_, ptr := f.Type().(*types.Pointer)
		out = append(out, map[string]any{"name": f.Name(), "ptr": ptr, "U": kind(f.Type()),
			"T": types.TypeString(f.Type(), types.RelativeTo(pkg))})
		t = f.Type()
	}
	return out
}

// promoted lists the methods a struct type gets from its embedded fields (of *T's method set:
// a pointer's set includes the value's): {"name", "path", "ptrrecv", "recvtype"}.
func promoted(t types.Type) []any {
	ms := types.NewMethodSet(types.NewPointer(t))
	var out []any
	for i := 0; i < ms.Len(); i++ {
		sel := ms.At(i)
		if len(sel.Index()) < 2 {
			continue
		}
		fn := sel.Obj().(*types.Func)
		m := map[string]any{"name": fn.Name(), "path": embedPath(t, sel.Index()[:len(sel.Index())-1])}
		if sig := fn.Type().(*types.Signature); sig.Recv() != nil {
			_, m["ptrrecv"] = sig.Recv().Type().(*types.Pointer)
			if n, ok := types.Unalias(derefType(sig.Recv().Type())).(*types.Named); ok && n.Obj().Pkg() != nil {
				m["recvtype"] = n.Obj().Pkg().Path() + "." + n.Obj().Name()
			}
			if _, isIface := sig.Recv().Type().Underlying().(*types.Interface); isIface {
				m["recvtype"] = types.TypeString(sig.Recv().Type(), nil)
			}
		}
		out = append(out, m)
	}
	return out
}

// boxed: the expressions converted to an interface whose type is a named non-struct type of
// the module with methods (`type set map[string]struct{}`): the port boxes each such value
// there (rt.Named), the box carrying the methods a call through the interface needs.
var boxed = map[ast.Expr]map[string]any{}

// boxType: {"pkg", "name"} of a named non-struct type of the module (its values are boxed in
// interfaces: the box carries its methods and tells it from its underlying type), else nil.
func boxType(t types.Type) map[string]any {
	n, ok := types.Unalias(t).(*types.Named)
	if !ok || n.Obj().Pkg() == nil || n.TypeParams().Len() > 0 {
		return nil
	}
	switch n.Underlying().(type) {
	case *types.Struct, *types.Interface, *types.Pointer:
		return nil // a struct is its class; a named pointer type has no methods: the object
	}
	if p := n.Obj().Pkg(); p != pkg && srcPkgs[p.Path()] == nil {
		if p.Path() == "time" && n.Obj().Name() == "Duration" {
			return map[string]any{"pkg": "time", "name": "Duration"} // rt.Duration: fmt prints its String()
		}
		return nil // another standard type: its model, not a box
	}
	return map[string]any{"pkg": n.Obj().Pkg().Path(), "name": n.Obj().Name()}
}

// hidden: the conversions to an interface made by a multi-value call spread into results,
// variables or parameters (`return f()`, `a, b = f()`, `g(f())`) of a value the port must
// box or make a typed nil: there is no expression of its own to do it at, so the translator
// refuses them (one line each) rather than leave a bare value in the interface.
var hidden []any

func hiddenConv(e ast.Expr, target func(i int) types.Type) {
	multiValueIntoInterfaces(e, target, false, func(i int, t types.Type) {
		if boxType(t) != nil || nilable(t) {
			pos := fset.Position(e.Pos())
			hidden = append(hidden, map[string]any{"F": fileName(pos.Filename), "L": pos.Line,
				"T": types.TypeString(t, types.RelativeTo(pkg))})
		}
	})
}

// assignConvs: a multi-value call assigned to variables (a, b = f()), by call: result index ->
// how the port converts it to its variable's interface type ({"TypedNil": ...} or {"Box": ...}).
var assignConvs = map[ast.Expr][]any{}

func assignConv(e ast.Expr, target func(i int) types.Type) {
	multiValueIntoInterfaces(e, target, true, func(i int, t types.Type) {
		if b := boxType(t); b != nil {
			assignConvs[e] = append(assignConvs[e], map[string]any{"i": i, "Box": b, "U": kind(t)})
		} else if nilable(t) {
			assignConvs[e] = append(assignConvs[e], map[string]any{"i": i, "TypedNil": typedNilInfo(t), "U": kind(t)})
		}
	})
}

// multiValueIntoInterfaces calls each(i, t) for every result i (of type t, not an interface) of
// the multi-value call e whose target(i) is an interface type: the conversions hiddenConv and
// assignConv record. A result of a type that mentions a type parameter is refused instead.
// skipParamTarget: a target that is a type parameter is no conversion here (assignments).
func multiValueIntoInterfaces(e ast.Expr, target func(i int) types.Type, skipParamTarget bool, each func(i int, t types.Type)) {
	tv, ok := info.Types[e]
	if !ok {
		return
	}
	tup, ok := tv.Type.(*types.Tuple)
	if !ok {
		return
	}
	for i := 0; i < tup.Len(); i++ {
		t, dst := tup.At(i).Type(), target(i)
		if dst == nil {
			continue
		}
		if _, ok := dst.Underlying().(*types.Interface); !ok || (skipParamTarget && isTypeParam(dst)) {
			continue
		}
		if _, ok := t.Underlying().(*types.Interface); ok && !isTypeParam(t) {
			continue
		}
		if mentionsTypeParam(t) {
			refuseGeneric(e.Pos(), "a value of type "+types.TypeString(t, types.RelativeTo(pkg))+" (a type parameter's) put in an interface by a multi-value call")
			continue
		}
		each(i, t)
	}
}

// typedNilInfo: what the port's rt.typed needs of a type whose nil is a typed nil in an interface.
func typedNilInfo(t types.Type) map[string]any {
	tn := map[string]any{"T": types.TypeString(t, types.RelativeTo(pkg)), "Q": qualified(t), "U": kind(t)}
	if p, ok := t.Underlying().(*types.Pointer); ok {
		if n, ok := types.Unalias(p.Elem()).(*types.Named); ok && n.Obj().Pkg() != nil && (n.Obj().Pkg() == pkg || srcPkgs[n.Obj().Pkg().Path()] != nil) {
			if _, isStruct := n.Underlying().(*types.Struct); isStruct {
				tn["elem"] = map[string]any{"pkg": n.Obj().Pkg().Path(), "name": n.Obj().Name()} // its methods' class
			}
		}
	}
	return tn
}

// typedNilAt: the conversions to an interface of a value that may be nil (a pointer, slice,
// map, channel or func), by expression (encode writes each as "TypedNil").
var typedNilAt = map[ast.Expr]map[string]any{}

// typedNils: conversions of a value that may be nil the translator must refuse (a site
// given by file and line). Empty now: every such conversion is marked in typedNilAt and
// translated as Go's typed nil (rt.TypedNil); kept for the translator's refusal path.
var typedNils []any

// nilable: the kinds of value whose nil, put in an interface, is a typed nil.
func nilable(t types.Type) bool {
	switch t.Underlying().(type) {
	case *types.Pointer, *types.Slice, *types.Map, *types.Chan, *types.Signature:
		return true
	}
	return false
}

// localValues: for each local variable, every value assigned to it (its declaration's
// included); a variable also bound otherwise (a parameter, a range or type-switch variable, a
// multi-value assignment, declared without a value, or whose address is taken) is in opaque.
var localValues map[*types.Var][]ast.Expr
var opaque map[*types.Var]bool

func indexLocals(files []*ast.File) {
	localValues, opaque = map[*types.Var][]ast.Expr{}, map[*types.Var]bool{}
	varOf := func(e ast.Expr) *types.Var {
		if id, ok := ast.Unparen(e).(*ast.Ident); ok {
			o := info.Defs[id]
			if o == nil {
				o = info.Uses[id]
			}
			if v, ok := o.(*types.Var); ok {
				return v
			}
		}
		return nil
	}
	for _, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			switch x := n.(type) {
			case *ast.AssignStmt:
				for i, l := range x.Lhs {
					if v := varOf(l); v != nil {
						if len(x.Lhs) == len(x.Rhs) && (x.Tok == token.ASSIGN || x.Tok == token.DEFINE) {
							localValues[v] = append(localValues[v], x.Rhs[i])
						} else {
							opaque[v] = true
						}
					}
				}
			case *ast.ValueSpec:
				for i, id := range x.Names {
					if v := varOf(id); v != nil {
						if len(x.Values) == len(x.Names) {
							localValues[v] = append(localValues[v], x.Values[i])
						} else {
							opaque[v] = true
						}
					}
				}
			case *ast.UnaryExpr:
				if x.Op == token.AND {
					if v := varOf(x.X); v != nil {
						opaque[v] = true
					}
				}
			}
			return true
		})
	}
}

// nonNil: e cannot be nil, whatever the run (an address, a composite or func literal, make,
// new, a declared function or method value, an append of elements, a slice of a non-nil slice,
// a local variable only ever assigned such values).
func nonNil(e ast.Expr) bool { return nonNilSeen(e, map[*types.Var]bool{}) }

func nonNilSeen(e ast.Expr, seen map[*types.Var]bool) bool {
	switch x := ast.Unparen(e).(type) {
	case *ast.UnaryExpr:
		return x.Op == token.AND
	case *ast.CompositeLit, *ast.FuncLit:
		return true
	case *ast.SliceExpr:
		return nonNilSeen(x.X, seen)
	case *ast.CallExpr:
		if id, ok := ast.Unparen(x.Fun).(*ast.Ident); ok {
			if b, ok := info.Uses[id].(*types.Builtin); ok {
				switch b.Name() {
				case "make", "new":
					return true
				case "append":
					return (len(x.Args) > 1 && !x.Ellipsis.IsValid()) || nonNilSeen(x.Args[0], seen)
				}
				return false
			}
		}
	case *ast.Ident:
		switch o := info.Uses[x].(type) {
		case *types.Func:
			return true
		case *types.Var:
			if o.Parent() == nil || o.Parent() == o.Pkg().Scope() || opaque[o] || len(localValues[o]) == 0 {
				return false // a field, a package-level var, a parameter, ...
			}
			if seen[o] {
				return true // a cycle (x = append(x, v)): its other values decide
			}
			seen[o] = true
			for _, v := range localValues[o] {
				if !nonNilSeen(v, seen) {
					return false
				}
			}
			return true
		}
		return false
	case *ast.SelectorExpr:
		if sel, ok := info.Selections[x]; ok {
			return sel.Kind() == types.MethodVal
		}
		_, isFunc := info.Uses[x.Sel].(*types.Func)
		return isFunc
	}
	return false
}

// printFuncs: by package, the functions and methods that only print their arguments, as the
// port models them (fmtshape.py's FMT_CALLEES and FMT_METHODS wrap their arguments; not
// fmt.Errorf: errors.Is reaches what %w wraps).
var printFuncs = map[string]map[string]bool{
	"fmt":     {"Sprintf": true, "Sprint": true},
	"log":     {"Printf": true, "Println": true, "Print": true},
	"testing": {"Fatal": true, "Fatalf": true, "Error": true, "Errorf": true, "Log": true, "Logf": true, "Skip": true, "Skipf": true},
}

// fmtArg: the value being noted is an argument of a call that only prints it (fmtCall).
var fmtArg bool

// fmtCall: a call of fmt's printing functions, log's or testing.T's (not fmt.Errorf: errors.Is
// and errors.As reach what %w wraps), whose arguments are printed and never come back out of the
// interface: the translator wraps each in its static type (fmtshape.py), so they are not listed
// among the dynamic types of the package's interface values.
func fmtCall(x *ast.CallExpr) bool {
	sel, ok := ast.Unparen(x.Fun).(*ast.SelectorExpr)
	if !ok {
		return false
	}
	if id, ok := sel.X.(*ast.Ident); ok {
		if pn, ok := info.Uses[id].(*types.PkgName); ok {
			p := pn.Imported().Path()
			return printFuncs[p][sel.Sel.Name] && p != "testing"
		}
	}
	if s, ok := info.Selections[sel]; ok && s.Kind() == types.MethodVal {
		if f, ok := s.Obj().(*types.Func); ok && f.Pkg() != nil {
			return printFuncs[f.Pkg().Path()][sel.Sel.Name] && f.Pkg().Path() != "fmt"
		}
	}
	return false
}

// ifaceTypes lists every type whose values the package converts to an interface (assignment,
// call argument, result, composite literal element, send, comparison, map key, conversion):
// the dynamic types an interface value can have, so the translator can tell whether a type
// assertion's Python check (the class, or int/str/bool/float) is exact. Each entry:
// {"T": type, "cat": what Python value it is, "ptrmethods": a struct value type whose pointer
// has methods the value lacks (a Python object has them all)}.
func ifaceTypes(files []*ast.File) []any {
	indexLocals(files)
	seen := map[string]map[string]any{}
	note := func(e ast.Expr, target types.Type) {
		if e == nil || target == nil {
			return
		}
		if isTypeParam(target) {
			return // assigned to a T (of T only): no interface conversion
		}
		if _, ok := target.Underlying().(*types.Interface); !ok {
			return
		}
		tv, ok := info.Types[e]
		if !ok || tv.Type == nil || tv.IsNil() {
			return
		}
		t := tv.Type
		if mentionsTypeParam(t) {
			// in a generic function: whether it must be boxed or kept a typed nil depends on the
			// instantiation, and the conversion is marked once for all of them
			refuseGeneric(e.Pos(), "a value of type "+types.TypeString(t, types.RelativeTo(pkg))+" (a type parameter's) put in an interface")
			return
		}
		if _, isIface := t.Underlying().(*types.Interface); isIface {
			return
		}
		if b, ok := t.(*types.Basic); ok && b.Info()&types.IsUntyped != 0 {
			t = types.Default(t)
		}
		ts := types.TypeString(t, types.RelativeTo(pkg))
		b := boxType(t)
		if b != nil {
			boxed[e] = b
		}
		// a box holding nil is a non-nil interface, as Go's typed nil is: exact, nothing to refuse.
		// Any other value that may be nil is marked where it is converted: the port puts an
		// rt.TypedNil there when it is nil (Go's typed nil: a non-nil interface of type T)
		if b == nil && nilable(t) && !nonNil(e) {
			typedNilAt[e] = typedNilInfo(t)
		}
		if _, ok := seen[ts]; ok || fmtArg {
			return // fmtArg: a value only printed (the port passes its static type there: fmtshape.py)
		}
		ent := map[string]any{"T": ts, "cat": category(t), "Q": qualified(t)}
		if _, isStruct := t.Underlying().(*types.Struct); isStruct {
			ent["ptrmethods"] = types.NewMethodSet(types.NewPointer(t)).Len() > types.NewMethodSet(t).Len()
		}
		seen[ts] = ent
	}
	typeOf := func(e ast.Expr) types.Type {
		if tv, ok := info.Types[e]; ok {
			return tv.Type
		}
		return nil
	}
	var sigs []*types.Signature
	var visit func(n ast.Node) bool
	visit = func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.FuncDecl:
			if o, ok := info.Defs[x.Name].(*types.Func); ok {
				sigs = append(sigs, o.Type().(*types.Signature))
				if x.Body != nil {
					ast.Inspect(x.Body, visit)
				}
				sigs = sigs[:len(sigs)-1]
			}
			return false
		case *ast.FuncLit:
			if sig, ok := typeOf(x).(*types.Signature); ok {
				sigs = append(sigs, sig)
				ast.Inspect(x.Body, visit)
				sigs = sigs[:len(sigs)-1]
			}
			return false
		case *ast.AssignStmt:
			if len(x.Lhs) == len(x.Rhs) && x.Tok == token.ASSIGN {
				for i := range x.Lhs {
					note(x.Rhs[i], typeOf(x.Lhs[i]))
				}
			} else if len(x.Rhs) == 1 && len(x.Lhs) > 1 {
				// a, b = f() (and x, err := f() redeclaring an interface x): each result converted
				// to its variable's interface type is marked on the call (Conv); the translator
				// takes the results apart and converts each there
				assignConv(x.Rhs[0], func(i int) types.Type {
					if id, ok := ast.Unparen(x.Lhs[i]).(*ast.Ident); ok {
						if id.Name == "_" || info.Defs[id] != nil {
							return nil // a new variable: the result's own type
						}
						if o := info.Uses[id]; o != nil {
							return o.Type()
						}
					}
					return typeOf(x.Lhs[i])
				})
			}
		case *ast.ValueSpec:
			if x.Type != nil {
				for _, v := range x.Values {
					note(v, typeOf(x.Type))
				}
				if len(x.Values) == 1 && len(x.Names) > 1 {
					hiddenConv(x.Values[0], func(int) types.Type { return typeOf(x.Type) })
				}
			}
		case *ast.ReturnStmt:
			if len(sigs) > 0 && sigs[len(sigs)-1].Results().Len() == len(x.Results) {
				for i, r := range x.Results {
					note(r, sigs[len(sigs)-1].Results().At(i).Type())
				}
			} else if len(sigs) > 0 && len(x.Results) == 1 {
				hiddenConv(x.Results[0], func(i int) types.Type { return sigs[len(sigs)-1].Results().At(i).Type() })
			}
		case *ast.SendStmt:
			if c, ok := typeOf(x.Chan).Underlying().(*types.Chan); ok {
				note(x.Value, c.Elem())
			}
		case *ast.BinaryExpr:
			if x.Op == token.EQL || x.Op == token.NEQ {
				note(x.X, typeOf(x.Y))
				note(x.Y, typeOf(x.X))
			}
		case *ast.IndexExpr:
			if m, ok := typeOf(x.X).Underlying().(*types.Map); ok {
				note(x.Index, m.Key())
			}
		case *ast.CompositeLit:
			switch u := typeOf(x).Underlying().(type) {
			case *types.Struct:
				for i, el := range x.Elts {
					if kv, ok := el.(*ast.KeyValueExpr); ok {
						for j := 0; j < u.NumFields(); j++ {
							if id, ok := kv.Key.(*ast.Ident); ok && u.Field(j).Name() == id.Name {
								note(kv.Value, u.Field(j).Type())
							}
						}
					} else if i < u.NumFields() {
						note(el, u.Field(i).Type())
					}
				}
			case *types.Slice, *types.Array, *types.Map:
				var key, elem types.Type
				switch w := u.(type) {
				case *types.Slice:
					elem = w.Elem()
				case *types.Array:
					elem = w.Elem()
				case *types.Map:
					key, elem = w.Key(), w.Elem()
				}
				for _, el := range x.Elts {
					if kv, ok := el.(*ast.KeyValueExpr); ok {
						note(kv.Key, key)
						note(kv.Value, elem)
					} else {
						note(el, elem)
					}
				}
			}
		case *ast.SwitchStmt:
			if x.Tag != nil {
				for _, c := range x.Body.List {
					for _, e := range c.(*ast.CaseClause).List {
						note(e, typeOf(x.Tag))
						note(x.Tag, typeOf(e))
					}
				}
			}
		case *ast.CallExpr:
			ft := info.Types[x.Fun]
			if ft.IsType() {
				if len(x.Args) == 1 {
					note(x.Args[0], ft.Type)
				}
				return true
			}
			if id, ok := ast.Unparen(x.Fun).(*ast.Ident); ok {
				if b, ok := info.Uses[id].(*types.Builtin); ok {
					switch b.Name() {
					case "panic":
						note(x.Args[0], types.NewInterfaceType(nil, nil))
					case "append":
						if s, ok := typeOf(x.Args[0]).Underlying().(*types.Slice); ok && !x.Ellipsis.IsValid() {
							for _, a := range x.Args[1:] {
								note(a, s.Elem())
							}
						}
					}
					return true
				}
			}
			sig, ok := ft.Type.Underlying().(*types.Signature)
			if !ok {
				return true
			}
			n := sig.Params().Len()
			if len(x.Args) == 1 && n > 1 {
				hiddenConv(x.Args[0], func(i int) types.Type {
					if sig.Variadic() && i >= n-1 {
						return sig.Params().At(n - 1).Type().(*types.Slice).Elem()
					}
					return sig.Params().At(i).Type()
				})
			}
			printed := fmtCall(x)
			for i, a := range x.Args {
				var pt types.Type
				switch {
				case sig.Variadic() && i >= n-1 && !x.Ellipsis.IsValid():
					pt = sig.Params().At(n - 1).Type().(*types.Slice).Elem()
				case i < n:
					pt = sig.Params().At(i).Type()
				}
				fmtArg = printed
				note(a, pt)
				fmtArg = false
			}
		}
		return true
	}
	for _, f := range files {
		ast.Inspect(f, visit)
	}
	keys := make([]string, 0, len(seen))
	for k := range seen {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := []any{}
	for _, k := range keys {
		out = append(out, seen[k])
	}
	return out
}

// qualified is a type as Go's runtime prints it in a panic: package-qualified by name.
func qualified(t types.Type) string {
	return types.TypeString(t, func(p *types.Package) string { return p.Name() })
}

// category is what Python value stands for a Go type in a port: types of one category cannot
// be told apart at run time.
func category(t types.Type) string {
	if b := boxType(t); b != nil && b["pkg"] == pkg.Path() {
		return "box:" + b["name"].(string) // its own Python class (rt.Named): told apart from its underlying type
	}
	if b := boxType(t); b != nil && b["pkg"] == "time" {
		return "box:time." + b["name"].(string) // rt.Duration, told apart from int likewise
	}
	if p, ok := t.(*types.Pointer); ok {
		if n, ok := types.Unalias(p.Elem()).(*types.Named); ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == "sync" {
			return "sync:" + n.Obj().Name() // *sync.Mutex: gosim's Mutex object, one Python class
		}
		if _, isStruct := p.Elem().Underlying().(*types.Struct); !isStruct {
			return "ptr:" + types.TypeString(t, types.RelativeTo(pkg)) // a pointer cell (rtptr): one kind for every such type
		}
	}
	base := derefType(t)
	if n, ok := types.Unalias(base).(*types.Named); ok && n.Obj().Pkg() == pkg {
		if _, ok := n.Underlying().(*types.Struct); ok {
			return "struct:" + n.Obj().Name()
		}
	}
	if b, ok := t.Underlying().(*types.Basic); ok {
		switch {
		case b.Info()&types.IsInteger != 0:
			return "int"
		case b.Info()&types.IsFloat != 0:
			return "float"
		case b.Info()&types.IsString != 0:
			return "string"
		case b.Info()&types.IsBoolean != 0:
			return "bool"
		}
	}
	switch t.Underlying().(type) {
	case *types.Slice:
		return "slice"
	case *types.Map:
		return "map"
	case *types.Chan:
		return "chan"
	}
	return "other:" + types.TypeString(t, types.RelativeTo(pkg))
}

var sizes = types.SizesFor("gc", "amd64")

// hasPointers: whether the garbage collector scans a value of t (runtime: !noscan).
func hasPointers(t types.Type) bool {
	switch u := t.Underlying().(type) {
	case *types.Basic:
		return u.Info()&types.IsString != 0 || u.Kind() == types.UnsafePointer
	case *types.Struct:
		for i := 0; i < u.NumFields(); i++ {
			if hasPointers(u.Field(i).Type()) {
				return true
			}
		}
		return false
	case *types.Array:
		return u.Len() > 0 && hasPointers(u.Elem())
	}
	return true
}

func derefType(t types.Type) types.Type {
	if p, ok := t.(*types.Pointer); ok {
		return p.Elem()
	}
	return t
}

// sizeof is sizes.Sizeof, false for a type whose size depends on a type parameter (go/types
// asserts on those).
func sizeof(t types.Type) (n int64, ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	return sizes.Sizeof(t), true
}

func main() {
	tagList := flag.String("tags", "", "build tags that are on, comma-separated")
	flag.Parse()
	for _, t := range strings.Split(*tagList, ",") {
		if t != "" {
			tags[t] = true
		}
	}
	files, name := parseDir(flag.Args(), true)
	if len(files) == 0 {
		failDo("a port needs a build with no tags (buggy, or the only one) and one with -tags fixed: give the package files for both (docs/PORT.md)",
			"%s: no Go file builds with tags %q", strings.Join(flag.Args(), " "), *tagList)
	}
	path := name
	if dir, err := filepath.Abs(filepath.Dir(fset.Position(files[0].Package).Filename)); err == nil {
		rootDir = dir
		findModule(dir)
		if modPath != "" {
			stdImporter = importer.ForCompiler(fset, "gc", moduleLookup)
			if rel, err := filepath.Rel(modDir, dir); err == nil && !strings.HasPrefix(rel, "..") {
				path = strings.TrimSuffix(modPath+"/"+filepath.ToSlash(rel), "/.")
			}
		}
	}
	conf := types.Config{Importer: srcImporter{}, Error: nil}
	var err error
	pkg, err = conf.Check(path, fset, files, info)
	if err != nil {
		if te, ok := err.(types.Error); ok {
			// one line: a missing import's message goes on with every directory searched
			msg := strings.SplitN(te.Msg, "\n", 2)[0]
			if i := strings.Index(msg, " (can't find import"); i >= 0 {
				msg = msg[:i] + " (neither in the standard library, this package's module nor the modules it requires)"
			}
			fail("%s: %s", where(te.Pos), msg)
		}
		fail("%v", err)
	}
	root := pkg
	collectInstances(append(append([]*ast.File{}, files...), allSrcFiles()...))
	var deps []any
	for _, p := range srcOrder {
		pkg = srcPkgs[p] // objInfo's "local", zero's "foreign", TypeString: relative to the package encoded
		typedNils, hidden, genericRefused = nil, nil, nil
		ifaceTypes(srcFiles[p]) // its typed nils and boxes (its IfaceTypes are not used: assertions are per package)
		var enc []any
		for _, f := range srcFiles[p] {
			enc = append(enc, encode(reflect.ValueOf(f)))
		}
		deps = append(deps, map[string]any{"package": pkg.Name(), "path": p, "files": enc, "TypedNils": typedNils, "Hidden": hidden,
			"GenericRefused": genericRefused})
	}
	pkg = root
	typedNils, hidden, genericRefused = nil, nil, nil
	iface := ifaceTypes(files) // fills typedNils and boxed, which encode reads
	var out []any
	for _, f := range files {
		out = append(out, encode(reflect.ValueOf(f)))
	}
	b, err := json.Marshal(map[string]any{"package": name, "path": path, "files": out, "deps": deps,
		"IfaceTypes": iface, "TypedNils": typedNils, "Hidden": hidden, "GenericRefused": genericRefused})
	if err != nil {
		fail("encoding: %v", err)
	}
	fmt.Println(string(b))
}

// firstLine keeps the first error of a parse error list, as file.go:LINE: what.
func firstLine(msg, path string) string {
	line := strings.SplitN(msg, "\n", 2)[0]
	line = strings.TrimPrefix(line, filepath.Dir(path)+string(filepath.Separator))
	// file.go:L:C: msg -> file.go:L: msg
	parts := strings.SplitN(line, ":", 4)
	if len(parts) == 4 {
		return parts[0] + ":" + parts[1] + ":" + parts[3]
	}
	return line
}

// --- generic functions: one instance per instantiation (stenciled) ------------------------------
//
// The translator emits a generic function once per distinct list of type arguments it is
// instantiated with (types.Info.Instances, closed over instantiations inside other generic
// functions): each instance is the declaration encoded with subst set, so that every type goast
// reports (kinds, zero values, element sizes, method receivers) is the instantiation's.

// subst maps the type parameters of the generic function being encoded to its type arguments
// (nil outside an instance).
var subst map[*types.TypeParam]types.Type

type instance struct {
	key   string // the type arguments, package-qualified, comma-separated
	subst map[*types.TypeParam]types.Type
}

// instances: each generic function of the module (its origin) -> its instances, sorted by key.
var instances = map[*types.Func][]instance{}

// genericRefused: constructs of a generic function whose translation would depend on the
// instantiation in a way one marking cannot say (the translator refuses each, file:line).
var genericRefused []any

func refuseGeneric(p token.Pos, what string) {
	pos := fset.Position(p)
	genericRefused = append(genericRefused, map[string]any{"F": fileName(pos.Filename), "L": pos.Line, "what": what})
}

func isTypeParam(t types.Type) bool {
	_, ok := types.Unalias(t).(*types.TypeParam)
	return ok
}

// mentionsTypeParam: t is, or is built from, a type parameter.
func mentionsTypeParam(t types.Type) bool {
	switch u := types.Unalias(t).(type) {
	case *types.TypeParam:
		return true
	case *types.Pointer:
		return mentionsTypeParam(u.Elem())
	case *types.Slice:
		return mentionsTypeParam(u.Elem())
	case *types.Array:
		return mentionsTypeParam(u.Elem())
	case *types.Chan:
		return mentionsTypeParam(u.Elem())
	case *types.Map:
		return mentionsTypeParam(u.Key()) || mentionsTypeParam(u.Elem())
	case *types.Named:
		for i := 0; i < u.TypeArgs().Len(); i++ {
			if mentionsTypeParam(u.TypeArgs().At(i)) {
				return true
			}
		}
	case *types.Signature:
		return mentionsTypeParam(u.Params()) || mentionsTypeParam(u.Results())
	case *types.Tuple:
		for i := 0; i < u.Len(); i++ {
			if mentionsTypeParam(u.At(i).Type()) {
				return true
			}
		}
	case *types.Struct:
		for i := 0; i < u.NumFields(); i++ {
			if mentionsTypeParam(u.Field(i).Type()) {
				return true
			}
		}
	}
	return false
}

var instCtxt = types.NewContext()

// sub is t with the current instance's type arguments in place of its type parameters.
func sub(t types.Type) types.Type {
	if subst == nil || t == nil || !mentionsTypeParam(t) {
		return t
	}
	return substWith(t, subst)
}

func substWith(t types.Type, m map[*types.TypeParam]types.Type) types.Type {
	switch u := types.Unalias(t).(type) {
	case *types.TypeParam:
		if r, ok := m[u]; ok {
			return r
		}
		return u
	case *types.Pointer:
		return types.NewPointer(substWith(u.Elem(), m))
	case *types.Slice:
		return types.NewSlice(substWith(u.Elem(), m))
	case *types.Array:
		return types.NewArray(substWith(u.Elem(), m), u.Len())
	case *types.Chan:
		return types.NewChan(u.Dir(), substWith(u.Elem(), m))
	case *types.Map:
		return types.NewMap(substWith(u.Key(), m), substWith(u.Elem(), m))
	case *types.Named:
		if u.TypeArgs().Len() == 0 {
			return u
		}
		var args []types.Type
		for i := 0; i < u.TypeArgs().Len(); i++ {
			args = append(args, substWith(u.TypeArgs().At(i), m))
		}
		if r, err := types.Instantiate(instCtxt, u.Origin(), args, false); err == nil {
			return r
		}
		return u
	case *types.Tuple:
		return substTuple(u, m)
	case *types.Signature:
		return types.NewSignatureType(nil, nil, nil, substTuple(u.Params(), m), substTuple(u.Results(), m), u.Variadic())
	case *types.Struct:
		var fields []*types.Var
		var tags []string
		for i := 0; i < u.NumFields(); i++ {
			f := u.Field(i)
			fields = append(fields, types.NewField(f.Pos(), f.Pkg(), f.Name(), substWith(f.Type(), m), f.Embedded()))
			tags = append(tags, u.Tag(i))
		}
		return types.NewStruct(fields, tags)
	}
	return t
}

func substTuple(t *types.Tuple, m map[*types.TypeParam]types.Type) *types.Tuple {
	if t == nil {
		return nil
	}
	var vars []*types.Var
	for i := 0; i < t.Len(); i++ {
		v := t.At(i)
		vars = append(vars, types.NewParam(v.Pos(), v.Pkg(), v.Name(), substWith(v.Type(), m)))
	}
	return types.NewTuple(vars...)
}

func instKey(args []types.Type) string {
	var parts []string
	for _, a := range args {
		parts = append(parts, types.TypeString(a, nil))
	}
	return strings.Join(parts, ", ")
}

// instIndex: the index of the instance of generic function fn with type arguments targs (as
// written at a use, substituted by the instance being encoded), or false.
func instIndex(fn *types.Func, targs *types.TypeList) (int, bool) {
	var args []types.Type
	for i := 0; i < targs.Len(); i++ {
		args = append(args, sub(targs.At(i)))
	}
	key := instKey(args)
	for i, in := range instances[fn] {
		if in.key == key {
			return i, true
		}
	}
	return 0, false
}

func allSrcFiles() []*ast.File {
	var out []*ast.File
	for _, p := range srcOrder {
		out = append(out, srcFiles[p]...)
	}
	return out
}

// collectInstances fills instances: every instantiation of a generic function declared in files
// whose type arguments are concrete, and, through each instance's body, the instantiations it
// makes in turn (F[T] calling G[[]T]), to a fixpoint.
func collectInstances(files []*ast.File) {
	decls := map[*types.Func]*ast.FuncDecl{}
	for _, f := range files {
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Type.TypeParams != nil {
				if fn, ok := info.Defs[fd.Name].(*types.Func); ok {
					decls[fn] = fd
				}
			}
		}
	}
	seen := map[string]bool{}
	var work []struct {
		fn *types.Func
		in instance
	}
	add := func(fn *types.Func, args []types.Type) {
		for _, a := range args {
			if mentionsTypeParam(a) {
				return // in a generic body: its instances come through the enclosing function's
			}
		}
		key := instKey(args)
		id := fmt.Sprintf("%p|%s", fn, key)
		if seen[id] {
			return
		}
		seen[id] = true
		tps := fn.Type().(*types.Signature).TypeParams()
		m := map[*types.TypeParam]types.Type{}
		for i := 0; i < tps.Len() && i < len(args); i++ {
			m[tps.At(i)] = args[i]
		}
		in := instance{key: key, subst: m}
		instances[fn] = append(instances[fn], in)
		work = append(work, struct {
			fn *types.Func
			in instance
		}{fn, in})
	}
	argsOf := func(tl *types.TypeList, m map[*types.TypeParam]types.Type) []types.Type {
		var out []types.Type
		for i := 0; i < tl.Len(); i++ {
			if m == nil {
				out = append(out, tl.At(i))
			} else {
				out = append(out, substWith(tl.At(i), m))
			}
		}
		return out
	}
	for id, in := range info.Instances {
		if fn, ok := info.Uses[id].(*types.Func); ok && decls[fn.Origin()] != nil {
			add(fn.Origin(), argsOf(in.TypeArgs, nil))
		}
	}
	for len(work) > 0 {
		w := work[0]
		work = work[1:]
		ast.Inspect(decls[w.fn].Body, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok {
				if in, ok := info.Instances[id]; ok {
					if fn, ok := info.Uses[id].(*types.Func); ok && decls[fn.Origin()] != nil {
						add(fn.Origin(), argsOf(in.TypeArgs, w.in.subst))
					}
				}
			}
			return true
		})
	}
	for fn := range instances {
		sort.Slice(instances[fn], func(i, j int) bool { return instances[fn][i].key < instances[fn][j].key })
	}
}
