# bash completion for spadmap (installed as share/bash-completion/completions/spadmap).
# The words come from the binary itself (`spadmap help --complete WORDS...`, read from
# the same command and option tables as --help and the man page), so they cannot drift;
# "__files__" among them means: file names too.
_spadmap() {
  local cur=${COMP_WORDS[COMP_CWORD]} IFS=$'\n' w files=0
  local -a words=()
  for w in $("${COMP_WORDS[0]}" help --complete "${COMP_WORDS[@]:1:COMP_CWORD-1}" 2>/dev/null); do
    if [[ $w == __files__ ]]; then files=1; else words+=("$w"); fi
  done
  COMPREPLY=($(compgen -W "${words[*]}" -- "$cur"))
  if ((files)); then
    compopt -o filenames 2>/dev/null
    COMPREPLY+=($(compgen -f -- "$cur"))
  fi
  return 0
}
complete -F _spadmap spadmap
