# zsh: hands what __mesh_complete found to compadd, which matches it against the word under the cursor.
_mesh() {
  local -a candidates
  __mesh_complete $((CURRENT - 1)) "${words[@]}"
  [[ -n $__mesh_eq ]] && compset -P '*='
  case $__mesh_files in
    file) _files && return 0 ;;
    dir) _files -/ && return 0 ;;
  esac
  candidates=(${(f)__mesh_out})
  compadd -a candidates
}
if [ "${funcstack[1]}" = _mesh ]; then _mesh "$@"; else compdef _mesh @names@; fi
