# bash: offers what __mesh_complete found that starts with the word under the cursor.
_mesh() {
  local cur=${COMP_WORDS[COMP_CWORD]} prefix='' candidate
  __mesh_complete "$COMP_CWORD" "${COMP_WORDS[@]}"
  # bash splits --option=value at the =: the cursor right after it stands on the = itself
  [ "$cur" = = ] && cur=''
  if [ -n "$__mesh_eq" ]; then
    prefix=${cur%%=*}=
    cur=${cur#*=}
  fi
  COMPREPLY=()
  case $__mesh_files in
    file) compopt -o filenames 2>/dev/null; __mesh_out=$(compgen -f -- "$cur") ;;
    dir) compopt -o filenames 2>/dev/null; __mesh_out=$(compgen -d -- "$cur") ;;
  esac
  while IFS= read -r candidate; do
    [ -n "$candidate" ] && [[ $candidate == "$cur"* ]] && COMPREPLY+=("$prefix$candidate")
  done <<<"$__mesh_out"
  return 0
}
complete -F _mesh @names@
