# tests/fuzz/TileFuzzer.cmake: the .tile front-end libFuzzer target.
#
# Included from tests/fuzz/CMakeLists.txt (owned by the layout fuzzers).
# Built only with clang, which ships libFuzzer. For coverage inside the
# compiler libraries as well, configure the whole build with
#   -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_CXX_FLAGS=-fsanitize=fuzzer-no-link,address
if(CMAKE_CXX_COMPILER_ID MATCHES "Clang")
  add_executable(tilec-tile-fuzzer ${CMAKE_CURRENT_LIST_DIR}/TileFuzzer.cpp)
  target_compile_options(tilec-tile-fuzzer PRIVATE
    -fsanitize=fuzzer,address,undefined)
  target_link_options(tilec-tile-fuzzer PRIVATE
    -fsanitize=fuzzer,address,undefined)
  target_link_libraries(tilec-tile-fuzzer PRIVATE tilec_compiler
    tilec_codegen tilec_ir)
endif()
