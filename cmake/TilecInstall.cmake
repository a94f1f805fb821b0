# TilecInstall.cmake: what `cmake --install` puts under the prefix, and the
# package config that `find_package(tilec)` reads there.
#
#   include/tilec/tilec.h                   the C API          tilec::tilec
#   lib/libtilec.so                         (LLVM linked in)
#   include/tilec/{ir,codegen,compiler,host,runtime}/...h
#                                           the C++ embedding  tilec::compiler
#   lib/libtilec_{compiler,host,codegen,ir,runtime,sim}.a
#   lib/cmake/tilec/                        tilecConfig.cmake and the targets
#
# The C++ headers keep their paths under include/tilec, so an embedder writes
# `#include "compiler/Compiler.h"` as the tree does. The static libraries do
# not carry LLVM: tilec::llvm names LLVM's own targets (the shared libLLVM, or
# the component archives with TILEC_LLVM_STATIC), and tilecConfig.cmake finds
# the LLVM this tree was built with (LLVM_PACKAGE_VERSION) again, with fmt,
# threads and the CUDA toolkit's headers. The C API and the C++ libraries are
# two export sets, so a C program needs none of that.

install(TARGETS tilec_capi EXPORT tilecTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(FILES ${PROJECT_SOURCE_DIR}/include/tilec/tilec.h
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/tilec)
install(EXPORT tilecTargets NAMESPACE tilec::
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/tilec)

set(TILEC_EMBEDDING_TARGETS
  tilec_compiler tilec_host tilec_codegen tilec_ir tilec_runtime tilec_sim
  tilec_llvm)
foreach(target ${TILEC_EMBEDDING_TARGETS})
  string(REPLACE "tilec_" "" export_name ${target})
  set_target_properties(${target} PROPERTIES EXPORT_NAME ${export_name})
endforeach()
# The headers are C++20; a consumer gets the standard with the target.
target_compile_features(tilec_compiler PUBLIC cxx_std_20)
install(TARGETS ${TILEC_EMBEDDING_TARGETS} EXPORT tilecCompilerTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(DIRECTORY ir codegen compiler host runtime
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/tilec
  FILES_MATCHING PATTERN "*.h" PATTERN "*.def"
  PATTERN "compiler/tilec" EXCLUDE)
install(EXPORT tilecCompilerTargets NAMESPACE tilec::
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/tilec)

if(TILEC_LLVM_STATIC)
  set(TILEC_LLVM_HOW ", linked from its component archives")
else()
  set(TILEC_LLVM_HOW ", linked as the shared libLLVM")
endif()
include(CMakePackageConfigHelpers)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/tilecConfig.cmake.in
  ${PROJECT_BINARY_DIR}/tilecConfig.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/tilec)
write_basic_package_version_file(
  ${PROJECT_BINARY_DIR}/tilecConfigVersion.cmake
  COMPATIBILITY SameMajorVersion)
install(FILES ${PROJECT_BINARY_DIR}/tilecConfig.cmake
  ${PROJECT_BINARY_DIR}/tilecConfigVersion.cmake
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/tilec)
