package suites

import (
	"strings"

	"github.com/skewcheck/skewcheck/framework/matrix"
	"github.com/skewcheck/skewcheck/suites/chaos"
	"github.com/skewcheck/skewcheck/suites/controllers"
	"github.com/skewcheck/skewcheck/suites/discovery"
	"github.com/skewcheck/skewcheck/suites/gateway"
	"github.com/skewcheck/skewcheck/suites/ipmode"
	"github.com/skewcheck/skewcheck/suites/mvp"
	"github.com/skewcheck/skewcheck/suites/races"
	"github.com/skewcheck/skewcheck/suites/soak"
)

// RangeEnds are the runs at the far ends of the tests' version ranges, which a night's
// adjacent supported pairs never reach: each is one release twice, and each profile has an
// end below its oldest test (TestEveryProfileHasAnEndBelowIt), so that every range is seen
// from both sides (matrix.CheckRanges). The nightly runs each as a job (ranges/<Name>),
// and make ranges runs them alone.
var RangeEnds = []matrix.RangeEnd{
	// Before the proxy's gate (1.28): mvp, chaos and gateway must skip.
	{Name: "v1.27.16", Version: "v1.27.16", Profiles: profiles(mvp.Profile, chaos.Profile)},
	{Name: "v1.27.16-gateway", Version: "v1.27.16", Profiles: gateway.Profile},
	// The oldest release with the gate: mvp and chaos pass without the deviations first
	// seen in 1.33.
	{Name: "v1.28.15", Version: "v1.28.15", Profiles: profiles(mvp.Profile, chaos.Profile)},
	// Before ipMode's beta (1.30): ipmode must skip.
	{Name: "v1.29.15-ipmode", Version: "v1.29.15", Profiles: ipmode.Profile},
	// The last release whose proxy goes by StorageVersions: mvp, chaos and gateway pass;
	// MVP-050 to MVP-053, discovery, races and soak (all from 1.35) skip.
	{Name: "v1.32.13", Version: "v1.32.13", Profiles: profiles(mvp.Profile, chaos.Profile, discovery.Profile, races.Profile, soak.Profile, controllers.Profile)},
	{Name: "v1.32.13-gateway", Version: "v1.32.13", Profiles: gateway.Profile},
	// Below the discovery deviation of 1.36: discovery passes without it.
	{Name: "v1.35.4", Version: "v1.35.4", Profiles: discovery.Profile},
}

func profiles(p ...string) string { return strings.Join(p, ",") }
