package sweep

import "github.com/benchserve/benchserve/results"

// MaxPromptFileBytes caps a prompt-set file LoadPromptSet reads: 16 MiB,
// far above any prompt set yet small enough that a wrong path (/dev/zero,
// a model file) fails at once with an error naming it instead of filling
// memory. Devices and directories are refused without reading
// (results.ErrNotAFile); a larger file wraps results.ErrInputTooLarge.
const MaxPromptFileBytes = 16 << 20

// readPromptFile reads a prompt-set file within MaxPromptFileBytes.
func readPromptFile(path string) ([]byte, error) {
	return results.ReadFileLimit(path, MaxPromptFileBytes)
}
