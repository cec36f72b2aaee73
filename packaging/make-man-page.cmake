# Writes terrabit-cli's man page with help2man: the top-level --help, plus a SUBCOMMANDS section
# holding each subcommand's own --help. Run by Packaging.cmake:
#   cmake -DCLI=... -DHELP2MAN=... -DVERSION=... -DOUT=.../terrabit-cli.1.gz -P make-man-page.cmake
execute_process(COMMAND ${CLI} --help OUTPUT_VARIABLE top RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${CLI} --help failed (${rc})")
endif()

# CLI11 lists subcommands under "SUBCOMMANDS:" as indented "name  description" lines.
string(REGEX REPLACE ".*SUBCOMMANDS:\n" "" listing "${top}")
string(REPLACE "\n" ";" lines "${listing}")
set(include_text "[SUBCOMMANDS]\n")
foreach(line IN LISTS lines)
  if(line MATCHES "^  ([a-z][a-z0-9-]*)( |$)")
    set(sub ${CMAKE_MATCH_1})
    execute_process(COMMAND ${CLI} ${sub} --help OUTPUT_VARIABLE text RESULT_VARIABLE rc)
    if(NOT rc EQUAL 0)
      message(FATAL_ERROR "${CLI} ${sub} --help failed (${rc})")
    endif()
    # Preformatted, with troff's escape character and leading dots made harmless.
    string(REPLACE "\\" "\\e" text "${text}")
    string(REGEX REPLACE "(^|\n)\\." "\\1\\\\&." text "${text}")
    string(APPEND include_text ".SS ${sub}\n.nf\n${text}\n.fi\n")
  endif()
endforeach()
if(include_text STREQUAL "[SUBCOMMANDS]\n")
  message(FATAL_ERROR "no subcommands found in ${CLI} --help")
endif()
string(APPEND include_text "[SEE ALSO]\nterrabit(1) is the desktop app. The rules, project and collision grid formats are described in /usr/share/doc/terrabit and the project README.\n")

get_filename_component(dir ${OUT} DIRECTORY)
file(MAKE_DIRECTORY ${dir})
file(WRITE ${dir}/terrabit-cli.h2m "${include_text}")
execute_process(
  COMMAND ${HELP2MAN} --no-info --no-discard-stderr --version-string=${VERSION}
          --name "turn real map data into game scenes from the command line"
          --include ${dir}/terrabit-cli.h2m --output ${dir}/terrabit-cli.1 ${CLI}
  RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "help2man failed (${rc})")
endif()
# gzip -n: no name or time stamp, so the page is byte-identical from build to build.
execute_process(COMMAND gzip -9nf ${dir}/terrabit-cli.1 RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "gzip failed (${rc})")
endif()
