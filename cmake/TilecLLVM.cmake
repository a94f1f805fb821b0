# TilecLLVM.cmake: find LLVM 22 and wrap the parts tilec uses in one target.
#
# `tilec::llvm` links only the components tilec needs: NVPTX code generation,
# the IR reader, the pass builder and Support. With TILEC_LLVM_STATIC the
# component archives are linked and their shared-only dependencies (z3, zstd)
# are replaced by static ones or dropped, so `tilec` and the test binaries can
# be copied to the GPU machine, which has no LLVM.
# LLVM's version file accepts only an exact major.minor request, so ask for
# any version on the llvm-22 path and check the major.
find_package(LLVM REQUIRED CONFIG
  HINTS /usr/lib/llvm-22/lib/cmake/llvm NO_DEFAULT_PATH)
if(NOT LLVM_VERSION_MAJOR EQUAL 22)
  message(FATAL_ERROR "tilec needs LLVM 22, found ${LLVM_PACKAGE_VERSION}")
endif()
message(STATUS "Using LLVM ${LLVM_PACKAGE_VERSION} from ${LLVM_DIR}")

set(TILEC_LLVM_COMPONENTS
  NVPTXCodeGen NVPTXDesc NVPTXInfo IRReader Passes Support Core Target
  TargetParser MC)

add_library(tilec_llvm INTERFACE)
add_library(tilec::llvm ALIAS tilec_llvm)
# Installed, tilecConfig.cmake adds the include directories of the LLVM it
# finds (cmake/TilecInstall.cmake).
target_include_directories(tilec_llvm SYSTEM INTERFACE
  "$<BUILD_INTERFACE:${LLVM_INCLUDE_DIRS}>")
separate_arguments(_tilec_llvm_defs NATIVE_COMMAND ${LLVM_DEFINITIONS})
target_compile_definitions(tilec_llvm INTERFACE ${_tilec_llvm_defs})

if(TILEC_LLVM_STATIC)
  llvm_map_components_to_libnames(_tilec_llvm_libs ${TILEC_LLVM_COMPONENTS})
  # LLVMSupport's exported interface names libz3.so and the shared zstd; the
  # machines we copy binaries to have neither LLVM nor z3.
  find_library(TILEC_ZSTD_STATIC NAMES libzstd.a REQUIRED)
  find_library(TILEC_Z_STATIC NAMES libz.a REQUIRED)
  set_target_properties(LLVMSupport PROPERTIES
    INTERFACE_LINK_LIBRARIES "rt;dl;m;${TILEC_Z_STATIC};${TILEC_ZSTD_STATIC};LLVMDemangle")
  target_link_libraries(tilec_llvm INTERFACE ${_tilec_llvm_libs})
  # LLVM archives are built with -ffunction-sections: drop what is unused.
  target_link_options(tilec_llvm INTERFACE -static-libstdc++ -static-libgcc
    -Wl,--gc-sections)
else()
  target_link_libraries(tilec_llvm INTERFACE LLVM)
endif()

# LLVM's testing tools for the golden tests.
find_program(TILEC_FILECHECK NAMES FileCheck PATHS ${LLVM_TOOLS_BINARY_DIR}
  NO_DEFAULT_PATH)
find_program(TILEC_LIT NAMES lit llvm-lit PATHS ${LLVM_TOOLS_BINARY_DIR}
  NO_DEFAULT_PATH)
