// Package present makes strings safe and short enough to show a person:
// in a terminal (the benchserve CLI), a go test log (benchtest) or an HTML
// page (report). It is presentation only: results files (JSON payloads,
// CSV, SQL, SQLite) keep the exact bytes they were given.
//
// A server chooses many of the strings benchserve shows (model names,
// ids, error messages, finish reasons, tool names), and a workload file
// chooses others (case ids, paths). Either may hold control characters
// (ESC sequences that recolor, hide or erase text; CR that returns to the
// start of the line; BEL; OSC sequences that retitle the terminal),
// bidirectional controls (U+202E turns the rest of the line around) or
// other invisible format characters, or be 10 KB long. Escape and Line
// turn each such character into a visible escape (\x1b, \r, \u202e) and
// invalid UTF-8 into \xNN; Name, Message, Evidence and Path also cut the
// string to a limit per kind of field, with a mark that says how much was
// cut (…(+10,140 bytes)); Wrap folds a long line at a column with an
// indent, never inside an escape. Writer applies Escape to everything
// written through it, so a print site that forgets still shows no raw
// control character.
//
// A backslash is not escaped: the point is that nothing is hidden or
// rewritten on the reader's screen, not that the text can be parsed back.
package present
