#!/usr/bin/env bash
# scripts/test-docs --marks can fail: on guides it writes itself, an unmarked shell block (sh,
# bash), a "not run:" without its reason and a typo of "runnable" each fail, naming the file and
# line; marked blocks and blocks of other languages pass.
set -uo pipefail
check=$(cd "$(dirname "$0")/../.." && pwd)/scripts/test-docs
work=$(mktemp -d "${TMPDIR:-/tmp}/emote-sim-marks.XXXXXX")
trap 'rm -rf "$work"' EXIT
failed=0

# expect STATUS FILE TEXT: test-docs --marks FILE exits STATUS and its output contains TEXT.
expect() {
  local want=$1 file=$2 text=$3 out status
  out=$("$check" --marks "$work/$file" 2>&1)
  status=$?
  if [[ $status -ne $want || $out != *"$text"* ]]; then
    echo "FAIL: $file: expected exit $want and \"$text\", got exit $status:"
    sed 's/^/    > /' <<<"$out"
    failed=1
  else
    echo "ok: $file"
  fi
}

printf '# A\n\ntext\n\n```sh\nscripts/serve\n```\n' >"$work/unmarked.md"
expect 1 unmarked.md "$work/unmarked.md:5: \`\`\`sh: a shell block must be marked"
printf '# A\n\n```bash\nls\n```\n' >"$work/bash.md"
expect 1 bash.md "$work/bash.md:3: \`\`\`bash"
printf '# A\n\n```sh not run:\nls\n```\n' >"$work/no-reason.md"
expect 1 no-reason.md "$work/no-reason.md:3: \`\`\`sh not run:"
printf '# A\n\n```sh runable\nls\n```\n' >"$work/typo.md"
expect 1 typo.md "$work/typo.md:3:"
printf '# A\n\n```sh runnable\ntrue\n```\n\n```sh not run: serves until stopped\nscripts/serve\n```\n\n```js\nconsole.log(1)\n```\n\n```\nsh output\n```\n' >"$work/marked.md"
expect 0 marked.md "1 files, 0 unmarked shell blocks"
# The default files are README.md, the guides and the READMEs of examples/, clients/ and tests/.
files=$("$check" --files)
for want in README.md docs/guide/bots.md examples/node-adapter/README.md clients/java/README.md \
            tests/golden/README.md tests/render/golden/README.md; do
  if grep -qxF "$want" <<<"$files"; then
    echo "ok: $want is checked by default"
  else
    echo "FAIL: $want is not among the default files of scripts/test-docs:"
    sed 's/^/    > /' <<<"$files"
    failed=1
  fi
done
exit $failed
