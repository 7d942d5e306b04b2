package resultio

import (
	"errors"
	"fmt"
	"regexp"
)

// ErrInvalidIdentifier is matched (errors.Is) by every *IdentifierError.
var ErrInvalidIdentifier = errors.New("results: invalid SQLite identifier")

// IdentifierError is ValidateIdentifier's error. It prints like the
// reference's ValueError: `results: invalid SQLite column identifier: "Bad"`.
type IdentifierError struct {
	Kind       string // "table" or "column"
	Identifier string
}

// Error prints the reference message with the package prefix.
func (e *IdentifierError) Error() string {
	return fmt.Sprintf("results: invalid SQLite %s identifier: %q", e.Kind, e.Identifier)
}

// Is reports whether target is ErrInvalidIdentifier.
func (e *IdentifierError) Is(target error) bool { return target == ErrInvalidIdentifier }

var sqlIdentifierRE = regexp.MustCompile(`^[a-z_][a-z0-9_]*$`)

// ValidateIdentifier rejects table or column names that are unsafe to
// interpolate into SQL (reference: _validate_sql_identifier, pattern
// ^[a-z_][a-z0-9_]*$). kind ("table", "column") names the identifier in the
// *IdentifierError returned (errors.Is(err, ErrInvalidIdentifier)).
func ValidateIdentifier(identifier, kind string) error {
	if !sqlIdentifierRE.MatchString(identifier) {
		return &IdentifierError{Kind: kind, Identifier: identifier}
	}
	return nil
}
