package fleet

import (
	"embed"
	"strings"
)

// The Lua scripts Redis runs, each in its own file with a comment on
// what it does, its keys and its arguments.
//
//go:embed *.lua
var luaFiles embed.FS

// lua is the source of the files named, one after the other: a library
// (now.lua, counted.lua) comes before the script that uses it.
func lua(names ...string) string {
	var src strings.Builder
	for _, name := range names {
		b, err := luaFiles.ReadFile(name)
		if err != nil {
			panic(err) // the files are embedded: they are there
		}
		src.Write(b)
	}
	return src.String()
}
