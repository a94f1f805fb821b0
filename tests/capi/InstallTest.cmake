# CTest capi-install and compiler-install: `cmake --install` the build tree
# into a fresh prefix, configure and build a consumer project (tests/capi:
# the C example over tilec::tilec; tests/embed: examples/embed_compile.cpp
# over tilec::compiler) against it with find_package(tilec), run the program
# and match its output.
#
#   cmake -DBUILD_DIR=... -DSOURCE_DIR=... -DWORK_DIR=... -DCONSUMER=tests/capi
#         [-DCONSUMER_ARGS=-Dx=y;...] -DRUN=capi_example;arg;...
#         [-DEXPECT=regex;regex...] [-DEXPECT_FILES=include/...;...]
#         -P InstallTest.cmake
foreach(var BUILD_DIR SOURCE_DIR WORK_DIR CONSUMER RUN)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "InstallTest.cmake: -D${var}= is required")
  endif()
endforeach()
file(REMOVE_RECURSE ${WORK_DIR})

function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGN}")
  endif()
endfunction()

run(${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${WORK_DIR}/prefix)
foreach(file include/tilec/tilec.h lib/cmake/tilec/tilecConfig.cmake
    ${EXPECT_FILES})
  if(NOT EXISTS ${WORK_DIR}/prefix/${file})
    message(FATAL_ERROR "not installed: ${file}")
  endif()
endforeach()
run(${CMAKE_COMMAND} -S ${SOURCE_DIR}/${CONSUMER} -B ${WORK_DIR}/build
  -DCMAKE_PREFIX_PATH=${WORK_DIR}/prefix ${CONSUMER_ARGS})
run(${CMAKE_COMMAND} --build ${WORK_DIR}/build)
list(POP_FRONT RUN program)
execute_process(COMMAND ${WORK_DIR}/build/${program} ${RUN}
  RESULT_VARIABLE rc OUTPUT_VARIABLE out)
message("${out}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "failed (${rc}): ${program} ${RUN}")
endif()
foreach(regex ${EXPECT})
  if(NOT out MATCHES "${regex}")
    message(FATAL_ERROR "${program}: no line matches '${regex}'")
  endif()
endforeach()
