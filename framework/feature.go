package framework

import (
	"fmt"
	"slices"
)

// Feature is something a test needs from the target beyond talking to its endpoints. Each
// is declared beside its domain (DeclareFeature), with how to tell that a target lacks it:
// a new feature is a declaration in its own file, and the core asks the declarations.
// It is also the name of what a fault acts on (scenarios/faults' Capability) and of what a
// provider's clusters can be asked for (clusters.Capability), both aliases of this type:
// one vocabulary, so a capability a test needs and a fault acts on (the network path into
// a server, control of its process, its registration) or a provider offers (a service
// dataplane, a controller manager) is one value, declared once, where its meaning lives
// (internal/layers fails a second declaration, or a type of its own).
type Feature string

// features are the declared features and how each tells a target lacks it. Declarations
// are package-level variables, so the map is complete before any test runs and is only
// read after.
var features = map[Feature]func(*Target) string{}

// DeclareFeature makes a feature of name known, with missing, which says why a target lacks
// it ("" when the target has it). Declare it once, as a package-level variable beside what
// it is about; a second declaration of a name panics (a programming error the first test
// finds).
func DeclareFeature(name string, missing func(t *Target) string) Feature {
	f := declareName(name)
	features[f] = missing
	return f
}

// DeclareCapability makes a capability of name known that no test needs of a target as a
// whole, said in words in messages: what a fault acts on (the sockets two servers dial
// each other from, a server's certificate files), whose checks of a subject are its
// package's (scenarios/faults), or what a provider's clusters can be asked for (servers
// without the peer proxy, node images), which a provider declares and clusters.Require
// checks. It is no feature: Features leaves it out, so no run accepts it missing
// (RunOptions.AcceptMissing).
func DeclareCapability(name, words string) Feature {
	f := declareName(name)
	wording[f] = words
	return f
}

// declareName claims name for one declaration of the vocabulary, features and
// capabilities alike.
func declareName(name string) Feature {
	f := Feature(name)
	if _, dup := declared[f]; dup {
		panic(fmt.Sprintf("framework: feature %q declared twice", name))
	}
	declared[f] = true
	return f
}

// declared are the names of every feature and capability; wording their words where
// messages say them otherwise than by name.
var declared, wording = map[Feature]bool{}, map[Feature]string{}

// Worded gives f the words messages say it in ("a peer path" for PeerPath), where a fault
// acts on it: chained to its declaration, so the name and its words are declared
// together.
func (f Feature) Worded(words string) Feature {
	wording[f] = words
	return f
}

// Words are how a message says f in a sentence: the words it was declared with, else its
// name.
func (f Feature) Words() string {
	if w, ok := wording[f]; ok {
		return w
	}
	return string(f)
}

// remedies say, in the words of the program that makes targets (a CLI's flags), how its
// user gives a target a feature it lacks. A declaration says what is missing in the
// library's words; the program adds how to get it (SetRemedy), so no package below the
// program names its flags.
var remedies = map[Feature]func(*Target) string{}

// SetRemedy makes how(t) the remedy a skip reason for t lacking f ends with, e.g. "run
// with --gateway reference" ("" for none: the target may lack f although its user asked
// for it). Call it while the program starts, before any test runs. A reason that says the
// feature does not apply here (NotHere) gets none: no flag gives it.
func SetRemedy(f Feature, how func(t *Target) string) { remedies[f] = how }

// missingFeature says why t lacks f, or "" when it has it. A feature no package declares is
// a test naming something nothing can check, which is the test's error to fix.
func missingFeature(t *Target, f Feature) string {
	missing, ok := features[f]
	if !ok {
		return fmt.Sprintf("no package declares the feature %q (framework.DeclareFeature): the test names a feature nothing can check", f)
	}
	why := missing(t)
	if why == "" || IsNotApplicable(why) || remedies[f] == nil {
		return why
	}
	if how := remedies[f](t); how != "" {
		why += " (" + how + ")"
	}
	return why
}

// Features are the declared features, sorted: what a user may name when accepting that a
// target lacks one (RunOptions.AcceptMissing).
func Features() []Feature {
	out := make([]Feature, 0, len(features))
	for f := range features {
		out = append(out, f)
	}
	slices.Sort(out)
	return out
}
