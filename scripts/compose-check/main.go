// compose-check loads docker-compose.yml the way `docker compose config` does — with compose-go, the
// library Docker Compose v2 is built on: the Compose Specification's JSON schema, interpolation and the
// model's own checks — so the file is validated on machines without a Docker engine or compose plugin.
// Usage: compose-check <file> [<file> ...]; exit 1 with compose-go's message when the file is invalid.
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/compose-spec/compose-go/v2/cli"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: compose-check <compose file> [<compose file> ...]")
		os.Exit(2)
	}
	opts, err := cli.NewProjectOptions(os.Args[1:], cli.WithOsEnv, cli.WithDotEnv)
	if err == nil {
		_, err = opts.LoadProject(context.Background())
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
