package sweep

import "github.com/benchserve/benchserve/internal/resultio"

// MaxPromptFileBytes caps a prompt-set file LoadPromptSet reads: 16 MiB,
// far above any prompt set yet small enough that a wrong path (/dev/zero,
// a model file) fails at once with an error naming it instead of filling
// memory. Devices and directories are refused without reading
// (resultio.ErrNotAFile); a larger file wraps resultio.ErrInputTooLarge.
const MaxPromptFileBytes = 16 << 20

// readPromptFile reads a prompt-set file within MaxPromptFileBytes.
func readPromptFile(path string) ([]byte, error) {
	return resultio.ReadFileLimit(path, MaxPromptFileBytes)
}
