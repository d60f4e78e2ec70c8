# The words typed so far, walked through the command table above: which command they name, which of its
# options waits for a value, which argument comes next. Runs in bash and zsh (there as sh).

# __mesh_option NAME ENTRY...: whether NAME is one of the options; __mesh_takes is then where its value
# comes from (- for free text), empty for a flag.
__mesh_option() {
  local name=$1 entry
  shift
  for entry in "$@"; do
    case $entry in
      "$name") __mesh_takes='' && return 0 ;;
      "$name"=*) __mesh_takes=${entry#*=} && return 0 ;;
    esac
  done
  return 1
}

# __mesh_one WORD ENTRY...: whether WORD is one of the entries.
__mesh_one() {
  local word=$1 entry
  shift
  for entry in "$@"; do [ "$entry" = "$word" ] && return 0; done
  return 1
}

# __mesh_runbooks PROGRAM CONFIG: the runbooks on the task queue (`id node` a line), asked of the CLI and
# kept for ten seconds; nothing when Temporal does not answer. The CLI asks Temporal for at most 1.5 s;
# `timeout` (where there is one) stops anything else that could hold the shell, a loaded machine's start
# of node included.
__mesh_runbooks() {
  local key="$1|$2|${MESH_CONFIG-}|${TEMPORAL_ADDRESS-}|${TEMPORAL_NAMESPACE-}|${MESH_TASK_QUEUE-}"
  if [ "$key" = "${__mesh_runbooks_key-}" ] && [ $((SECONDS - ${__mesh_runbooks_at:-0})) -lt 10 ]; then
    return 0
  fi
  local bound=''
  command -v timeout >/dev/null 2>&1 && bound='timeout 10'
  # shellcheck disable=SC2086 # $bound is a command and its argument, or nothing
  __mesh_runbooks_lines=$($bound "$1" ${2:+--config "$2"} completion @shell@ --runbooks 2>/dev/null)
  __mesh_runbooks_key=$key
  __mesh_runbooks_at=$SECONDS
}

# __mesh_values SOURCE CUR PROGRAM CONFIG: adds the values SOURCE names to __mesh_out, or asks for file
# names (__mesh_files).
__mesh_values() {
  local source=$1 cur=$2 id node list=''
  case $source in
    '' | -) return 0 ;;
    @file) __mesh_files='file' && return 0 ;;
    @dir) __mesh_files='dir' && return 0 ;;
    @runbook | @node | @nodes)
      __mesh_runbooks "$3" "$4"
      [ "$source" = @nodes ] && case $cur in *,*) list=${cur%,*}, ;; esac
      while read -r id node; do
        [ "$source" = @runbook ] && [ -n "$id" ] && __mesh_out="$__mesh_out$id
"
        [ -n "$node" ] && __mesh_out="$__mesh_out$list$node
"
      done <<EOF
$__mesh_runbooks_lines
EOF
      ;;
    *)
      local IFS='|'
      for id in $source; do __mesh_out="$__mesh_out$id
"; done
      ;;
  esac
}

# __mesh_complete INDEX WORD...: the completions of the word at INDEX (the program's name is word 0), one a
# line in __mesh_out, unfiltered; __mesh_files says to complete file names instead; __mesh_eq that the word
# is --option=value and its value is completed (zsh: after the =).
__mesh_complete() {
  if [ -n "${ZSH_VERSION-}" ]; then emulate -L sh; fi
  # `cmd`, never `path`: zsh ties $path to $PATH
  local at=$1 program=$2 cmd=mesh pos=0 i=1 word value='' config='' cur source='' inherited='' verbs=''
  shift 2
  __mesh_out='' __mesh_files='' __mesh_eq='' __mesh_takes=''
  case ${program##*/} in
    # As mesh-runbook (the plugin an operator's own mesh hands `mesh runbook ...` to) a runbook verb needs no
    # `runbook` before it.
    mesh-runbook) __mesh_command 'mesh runbook' && verbs=$__mesh_subs ;;
  esac
  __mesh_command mesh
  while [ "$i" -lt "$at" ] && [ $# -gt 0 ]; do
    word=$1
    shift
    i=$((i + 1))
    if [ -n "$value" ]; then
      # bash splits --option=value at the =, into three words
      [ "$word" = = ] && continue
      [ "$value" = --config ] && config=$word
      value=''
      continue
    fi
    case $word in
      -*=*) [ "${word%%=*}" = --config ] && config=${word#*=} ;;
      -*)
        # shellcheck disable=SC2086 # the entries are words
        __mesh_option "$word" $__mesh_opts $inherited && [ -n "$__mesh_takes" ] && value=$word
        ;;
      *)
        # shellcheck disable=SC2086
        if __mesh_one "$word" $__mesh_subs; then
          inherited="$inherited $__mesh_opts" cmd="$cmd $word" pos=0
          __mesh_command "$cmd"
        elif [ "$cmd" = mesh ] && __mesh_one "$word" $verbs; then
          inherited="$inherited $__mesh_opts" cmd="mesh runbook $word" pos=0
          __mesh_command "$cmd"
        else
          pos=$((pos + 1))
        fi
        ;;
    esac
  done
  cur=${1-}
  if [ -n "$value" ]; then
    # shellcheck disable=SC2086
    __mesh_option "$value" $__mesh_opts $inherited
    source=$__mesh_takes
    [ "$cur" = = ] && cur=''
  else
    case $cur in
      --*=*)
        # shellcheck disable=SC2086
        __mesh_option "${cur%%=*}" $__mesh_opts $inherited && source=$__mesh_takes
        __mesh_eq=1 cur=${cur#*=}
        ;;
      -*)
        for word in $__mesh_opts; do __mesh_out="$__mesh_out${word%%=*}
"; done
        return 0
        ;;
      *)
        for word in $__mesh_subs; do __mesh_out="$__mesh_out$word
"; done
        [ "$cmd" = mesh ] && for word in $verbs; do
          [ "$word" = help ] || __mesh_out="$__mesh_out$word
"
        done
        # shellcheck disable=SC2086
        set -- $__mesh_args
        while [ "$pos" -gt 0 ] && [ $# -gt 0 ]; do
          shift
          pos=$((pos - 1))
        done
        source=${1-}
        ;;
    esac
  fi
  __mesh_values "$source" "$cur" "$program" "$config"
}
