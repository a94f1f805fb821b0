# TilecLinker.cmake: use lld when the toolchain has it.
#
# Statically linked LLVM tools are large; GNU ld takes tens of seconds per
# binary on a 2-core machine, lld a few.
include(CheckLinkerFlag)
find_program(TILEC_LLD NAMES ld.lld-22 ld.lld PATHS /usr/lib/llvm-22/bin)
if(TILEC_LLD)
  get_filename_component(_tilec_lld_dir ${TILEC_LLD} DIRECTORY)
  check_linker_flag(CXX "-fuse-ld=lld;-B${_tilec_lld_dir}" TILEC_HAVE_LLD)
  if(TILEC_HAVE_LLD)
    add_link_options(-fuse-ld=lld -B${_tilec_lld_dir})
  endif()
endif()
add_link_options(-Wl,--as-needed)
