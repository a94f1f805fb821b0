# tests/fuzz/TileFuzzer.cmake: the .tile front-end libFuzzer target.
#
# Meant to be included at the end of tests/fuzz/CMakeLists.txt
# (include(${CMAKE_CURRENT_SOURCE_DIR}/TileFuzzer.cmake)), which returns
# early unless TILEC_FUZZ is on and the compiler is clang. Like the layout
# fuzzer, it rebuilds the code under test with the sanitizers:
#   ninja -C build-fuzz tilec-tile-fuzzer
#   build-fuzz/tests/fuzz/tilec-tile-fuzzer -max_total_time=60 \
#     tests/fuzz/corpus/tile
if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
  return()
endif()
file(GLOB TILEC_TILE_FUZZ_SOURCES CONFIGURE_DEPENDS
  ${PROJECT_SOURCE_DIR}/compiler/*.cpp
  ${PROJECT_SOURCE_DIR}/compiler/passes/*.cpp
  ${PROJECT_SOURCE_DIR}/ir/*.cpp
  ${PROJECT_SOURCE_DIR}/codegen/*.cpp)
add_executable(tilec-tile-fuzzer ${CMAKE_CURRENT_LIST_DIR}/TileFuzzer.cpp
  ${TILEC_TILE_FUZZ_SOURCES})
target_include_directories(tilec-tile-fuzzer PRIVATE ${PROJECT_SOURCE_DIR})
target_compile_definitions(tilec-tile-fuzzer PRIVATE
  TILEC_VERSION_STRING="${PROJECT_VERSION}")
target_link_libraries(tilec-tile-fuzzer PRIVATE tilec::llvm
  fmt::fmt-header-only)
target_compile_options(tilec-tile-fuzzer PRIVATE
  -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined)
target_link_options(tilec-tile-fuzzer PRIVATE
  -fsanitize=fuzzer,address,undefined)
