// Command jcspeer puts a Go JCS library behind the fastjcs canon batch protocol (v1).
//
// Usage: jcspeer gowebpki|cyberphone
//
// stdin: one base64 document per line; stdout: "ok <base64 canonical bytes>" or "error <text>" per
// line, in order, flushed after each. The document's raw bytes go to the library's Transform as they
// are (Go users hand it a []byte read from a file or a request body); a panic inside the library is
// recovered and answered as an error.
package main

import (
	"bufio"
	"encoding/base64"
	"fmt"
	"os"
	"strings"

	cyberphone "github.com/cyberphone/json-canonicalization/go/src/webpki.org/jsoncanonicalizer"
	gowebpki "github.com/gowebpki/jcs"
)

var transforms = map[string]func([]byte) ([]byte, error){
	"gowebpki":   gowebpki.Transform,
	"cyberphone": cyberphone.Transform,
}

func answer(transform func([]byte) ([]byte, error), line string) (reply string) {
	defer func() {
		if p := recover(); p != nil {
			reply = "error panic: " + oneLine(fmt.Sprint(p))
		}
	}()
	doc, err := base64.StdEncoding.DecodeString(line)
	if err != nil {
		return "error bad base64: " + oneLine(err.Error())
	}
	out, err := transform(doc)
	if err != nil {
		return "error " + oneLine(err.Error())
	}
	return "ok " + base64.StdEncoding.EncodeToString(out)
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

func main() {
	if len(os.Args) != 2 || transforms[os.Args[1]] == nil {
		fmt.Fprintln(os.Stderr, "usage: jcspeer gowebpki|cyberphone")
		os.Exit(2)
	}
	transform := transforms[os.Args[1]]
	in := bufio.NewReaderSize(os.Stdin, 1<<20)
	out := bufio.NewWriter(os.Stdout)
	for {
		line, err := in.ReadString('\n')
		if len(line) > 0 {
			out.WriteString(answer(transform, strings.TrimSuffix(line, "\n")) + "\n")
			if ferr := out.Flush(); ferr != nil {
				fmt.Fprintln(os.Stderr, "jcspeer:", ferr)
				os.Exit(1)
			}
		}
		if err != nil {
			return
		}
	}
}
