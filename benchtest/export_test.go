package benchtest

// SplitPatternForTest exposes splitPattern to the external tests.
var SplitPatternForTest = splitPattern
