// The node's own image reference parser, as an oracle: reads one JSON string per line and
// prints "accepted" or "refused" as the kubelet and containerd would (ParseNormalizedNamed,
// with the digest algorithms a node binary links).
package main

import (
	"bufio"
	_ "crypto/sha256"
	_ "crypto/sha512"
	"encoding/json"
	"fmt"
	"os"

	"github.com/distribution/reference"
)

func main() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<24), 1<<24)
	for in.Scan() {
		var ref string
		if err := json.Unmarshal(in.Bytes(), &ref); err != nil {
			panic(err)
		}
		if _, err := reference.ParseNormalizedNamed(ref); err != nil {
			fmt.Println("refused")
		} else {
			fmt.Println("accepted")
		}
	}
}
