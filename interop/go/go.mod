module fastjcs.invalid/interop/jcspeer

go 1.21

require (
	github.com/cyberphone/json-canonicalization v0.0.0-20241213102144-19d51d7fe467
	github.com/gowebpki/jcs v1.0.2
)
