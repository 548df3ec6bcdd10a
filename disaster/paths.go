package disaster

// Paths of the lists under JMA's API root.
const (
	QuakeListPath   = "quake/data/list.json"
	TsunamiListPath = "tsunami/data/list.json"
	tsunamiDataPath = "tsunami/data/"
)

// WarningPath is the path of an office's warnings.
func WarningPath(office string) string { return "warning/data/warning/" + office + ".json" }

// TsunamiReportPath is the path of e's detail file (ParseTsunamiReport).
func TsunamiReportPath(e TsunamiEntry) string { return tsunamiDataPath + e.ID }
