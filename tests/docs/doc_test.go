// Package docs holds tests that keep the documentation honest: the
// manifests and commands docs/*.md shows are decoded by the types of the
// systems that run them and checked against what the text says and what
// benchserve reads. It holds no code of its own, only tests, so its
// dependencies (k8s.io/api) are test-only and never reach a package a
// user imports.
//
// Run it with:
//
//	go test ./tests/docs/
package docs
