#!/usr/bin/env bash
# shared-dir.sh: print the project's shared directory (../shared next to
# the repository, holding vendor/ with the third-party sources no registry
# here serves), or exit 1 saying where it looked.
#
# A git worktree or a clone sits elsewhere than the main checkout, so
# ../shared is looked for next to the repository, next to its main worktree
# (the git common dir's parent) and next to the repository a clone came
# from (a local origin). $BENCHSERVE_SHARED wins when set.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

# main_of prints the main worktree of the git repository at $1.
main_of() {
	local common
	common=$(git -C "$1" rev-parse --path-format=absolute --git-common-dir 2>/dev/null) || return 0
	dirname "${common}"
}

candidates=()
if [[ -n ${BENCHSERVE_SHARED:-} ]]; then
	candidates=("${BENCHSERVE_SHARED}")
else
	candidates+=("${ROOT}/../shared")
	main=$(main_of "${ROOT}")
	[[ -z ${main} ]] || candidates+=("${main}/../shared")
	origin=$(git -C "${ROOT}" remote get-url origin 2>/dev/null || true)
	if [[ -n ${origin} && -d ${origin} ]]; then
		candidates+=("${origin}/../shared")
		main=$(main_of "${origin}")
		[[ -z ${main} ]] || candidates+=("${main}/../shared")
	fi
fi
for d in "${candidates[@]}"; do
	if [[ -d ${d}/vendor ]]; then
		(cd "${d}" && pwd -P)
		exit 0
	fi
done
echo "shared-dir: no shared/vendor directory at ${candidates[*]}; set BENCHSERVE_SHARED" >&2
exit 1
