package gopher_test

import (
	"fmt"

	"github.com/fetchproject/fetch/fetch"
	"github.com/fetchproject/fetch/schemes/gopher"
)

func ExampleParseURL() {
	u, _ := fetch.Parse("gopher://gopher.example.org/7/search%09dogs%20cats")
	g, _ := gopher.ParseURL(u)
	fmt.Printf("type %c selector %q search %q\n", g.Type, g.Selector, g.Search)
	fmt.Println(gopher.URLString("gopher.example.org", 70, '0', "/docs/read me.txt", "", false, "", false))
	// Output:
	// type 7 selector "/search" search "dogs cats"
	// gopher://gopher.example.org/0/docs/read%20me.txt
}
