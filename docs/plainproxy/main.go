// Command plainproxy is the yardstick of the tap's benchmark
// (docs/tap-bench.sh): a plain httputil.ReverseProxy that judges nothing,
// with the standard transport tuned for kept-alive connections to one
// target. skolkit tap is measured against it in the same run.
//
//	go run ./docs/plainproxy --listen 127.0.0.1:18092 --target http://127.0.0.1:18090
package main

import (
	"flag"
	"fmt"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
)

func main() {
	listen := flag.String("listen", "127.0.0.1:18092", "address to listen on")
	target := flag.String("target", "", "the server's base URL")
	flag.Parse()
	u, err := url.Parse(*target)
	if err != nil || u.Host == "" {
		fmt.Fprintln(os.Stderr, "plainproxy: --target must be an absolute URL")
		os.Exit(2)
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConns = 1024
	tr.MaxIdleConnsPerHost = 1024 // the default, 2, would reconnect under 16 connections
	proxy := &httputil.ReverseProxy{Rewrite: func(pr *httputil.ProxyRequest) { pr.SetURL(u) }, Transport: tr}
	fmt.Fprintf(os.Stderr, "plainproxy: http://%s -> %s\n", *listen, u)
	if err := http.ListenAndServe(*listen, proxy); err != nil {
		fmt.Fprintln(os.Stderr, "plainproxy:", err)
		os.Exit(2)
	}
}
