#!/bin/sh
# Fills the generated parts of a man page from the single definitions, so the
# pages cannot drift from the code:
#   .\" @OPTIONS@      the RTDD_OPTIONS keys       (detect/core/options.def)
#   .\" @RUN-OPTIONS@  the same as rtdd run options (--log-path=...)
#   .\" @KINDS@        the report kinds            (detect/report/kinds.def)
#   @VERSION@          the release
# Usage: gen.sh SRC OUT VERSION [OPTIONS_DEF KINDS_DEF]
set -eu
src=$1; out=$2; version=$3
optdef=${4:-detect/core/options.def}; kinddef=${5:-detect/report/kinds.def}
us=$(printf '\037')   # field separator: never in the definitions

# roff-escape a text for use in running text: backslashes, hyphens, and a
# leading dot or quote.
esc() { printf '%s\n' "$1" | sed -e 's/\\/\\e/g' -e 's/-/\\-/g' -e "s/^\\([.']\\)/\\\\\\&\\1/"; }

options() { # $1 = key or run
    sed -n "s/^RT_OPT(\([a-z_]*\), *\([A-Z]*\), *\"\([^\"]*\)\", *\([0-9]*\), *\([0-9]*\), *\"\([^\"]*\)\", *\"\(.*\)\")\$/\1$us\2$us\3$us\4$us\5$us\6$us\7/p" "$optdef" |
    while IFS=$us read -r key type def min max values meaning; do
        case $type in
        BOOL) vals="0 or 1" ;;
        INT) vals="$min to $max" ;;
        ENUM) vals=$(printf '%s' "$values" | sed 's/|/ or /g') ;;
        *) vals="" ;;
        esac
        [ -n "$def" ] || def="(none)"
        echo ".TP"
        if [ "$1" = run ]; then
            name=$(printf '%s' "$key" | tr _ -)
            printf '.BI \\-\\-%s= value\n' "$(esc "$name")"
        else
            printf '.BI %s= value\n' "$(esc "$key")"
        fi
        esc "$meaning."
        if [ -n "$vals" ]; then
            printf 'Values: %s; default: \\fB%s\\fR.\n' "$(esc "$vals")" "$(esc "$def")"
        else
            printf 'Default: \\fB%s\\fR.\n' "$(esc "$def")"
        fi
    done
}

kinds() {
    sed -n "s/^RT_KIND([A-Z_]*, *\"\([a-z-]*\)\", *\([A-Z]*\), *\"\(.*\)\", *\"\([^\"]*\)\")\$/\1$us\2$us\3$us\4/p" "$kinddef" |
    while IFS=$us read -r name sev headline title; do
        echo ".TP"
        printf '.BR %s " (%s)"\n' "$(esc "$name")" "$sev"
        esc "$title."
        echo ".br"
        printf '\\f(CR%s\\fR\n' "$(esc "$headline")"
    done
}

tmp=$out.tmp
: >"$tmp"
while IFS= read -r line || [ -n "$line" ]; do
    case $line in
    '.\" @OPTIONS@') options key >>"$tmp" ;;
    '.\" @RUN-OPTIONS@') options run >>"$tmp" ;;
    '.\" @KINDS@') kinds >>"$tmp" ;;
    *) printf '%s\n' "$line" | sed "s/@VERSION@/$version/g" >>"$tmp" ;;
    esac
done <"$src"
mv "$tmp" "$out"
