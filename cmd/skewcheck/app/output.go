package app

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/spf13/cobra"
	"sigs.k8s.io/yaml"
)

// outputFormat is -o, as kubectl and kind spell it: text (the command's own table or lines,
// the default), json or yaml, for a script to read what a person reads. Its Set refuses any
// other value as the flag is parsed, before the command does anything.
type outputFormat string

const outputFormats = "text, json or yaml"

func (o *outputFormat) String() string { return string(*o) }
func (o *outputFormat) Type() string   { return "format" }

func (o *outputFormat) Set(s string) error {
	switch s {
	case "text", "json", "yaml":
		*o = outputFormat(s)
		return nil
	}
	return fmt.Errorf("give %s", outputFormats)
}

// addOutputFlag gives cmd -o/--output, text by default, its values offered to a shell's
// completion.
func addOutputFlag(cmd *cobra.Command, o *outputFormat) {
	*o = "text"
	cmd.Flags().VarP(o, "output", "o", outputFormats)
	_ = cmd.RegisterFlagCompletionFunc("output", cobra.FixedCompletions([]string{"text", "json", "yaml"}, cobra.ShellCompDirectiveNoFileComp))
}

// print writes v as indented JSON or as YAML, or calls text for text. A list is given as a
// slice that is not nil, so an empty one prints [] rather than null.
func (o outputFormat) print(out io.Writer, v any, text func() error) error {
	switch o {
	case "json":
		data, err := json.MarshalIndent(v, "", "  ")
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(out, "%s\n", data)
		return err
	case "yaml":
		data, err := yaml.Marshal(v)
		if err != nil {
			return err
		}
		_, err = out.Write(data)
		return err
	case "text", "":
		return text()
	}
	return fmt.Errorf("-o %q: give %s", string(o), outputFormats)
}
