//! What the macOS loader and linker read from a dylib, taken from its Mach-O load commands with
//! the `object` crate: the CPU and file type, the install name (`LC_ID_DYLIB`), the libraries it
//! loads (`LC_LOAD_DYLIB` and its weak / re-export / upward forms), its run-path search list
//! (`LC_RPATH`) and the oldest macOS it runs on (`LC_BUILD_VERSION`'s minos). Only the header
//! and the load commands are read (libtorch_cpu.dylib is 338 MB; its commands a few KB).

use object::macho;
use object::macho::MachHeader64;
use object::read::macho::{LoadCommandVariant, MachHeader};
use object::LittleEndian;
use std::fs::File;
use std::io::Read;
use std::path::Path;

/// One dylib as the loader sees it.
#[derive(Debug)]
pub struct Dylib {
    pub arm64: bool,
    pub is_dylib: bool,
    pub install_name: Option<String>,
    /// (load command name, library path), in file order.
    pub loads: Vec<(&'static str, String)>,
    pub rpaths: Vec<String>,
    /// `LC_BUILD_VERSION` for macOS: (major, minor).
    pub min_macos: Option<(u16, u8)>,
}

/// Reads `path`'s header and load commands; an error names the file and what is wrong.
pub fn read(path: &Path) -> Result<Dylib, String> {
    let fail = |what: &str| format!("{}: {what}", path.display());
    let mut file = File::open(path).map_err(|e| fail(&e.to_string()))?;
    let header_len = std::mem::size_of::<MachHeader64<LittleEndian>>();
    let mut data = vec![0u8; header_len];
    file.read_exact(&mut data)
        .map_err(|e| fail(&format!("shorter than a Mach-O header ({e})")))?;
    let magic = u32::from_le_bytes(data[..4].try_into().unwrap());
    if magic != macho::MH_MAGIC_64 {
        return Err(fail(&format!(
            "not a 64-bit little-endian Mach-O file (magic {magic:#x}; a fat file or not Mach-O)"
        )));
    }
    let header =
        MachHeader64::<LittleEndian>::parse(&data[..], 0).map_err(|e| fail(&e.to_string()))?;
    let endian = LittleEndian;
    let commands_len = header.sizeofcmds(endian) as u64;
    file.take(commands_len)
        .read_to_end(&mut data)
        .map_err(|e| fail(&e.to_string()))?;
    let header =
        MachHeader64::<LittleEndian>::parse(&data[..], 0).map_err(|e| fail(&e.to_string()))?;
    let mut dylib = Dylib {
        arm64: header.cputype(endian) == macho::CPU_TYPE_ARM64,
        is_dylib: header.filetype(endian) == macho::MH_DYLIB,
        install_name: None,
        loads: Vec::new(),
        rpaths: Vec::new(),
        min_macos: None,
    };
    let mut commands = header
        .load_commands(endian, &data[..], 0)
        .map_err(|e| fail(&e.to_string()))?;
    let text = |bytes: &[u8]| String::from_utf8_lossy(bytes).into_owned();
    while let Some(command) = commands.next().map_err(|e| fail(&e.to_string()))? {
        match command.variant().map_err(|e| fail(&e.to_string()))? {
            LoadCommandVariant::IdDylib(id) => {
                let name = command
                    .string(endian, id.dylib.name)
                    .map_err(|e| fail(&e.to_string()))?;
                dylib.install_name = Some(text(name));
            }
            LoadCommandVariant::Dylib(load) => {
                let kind = match command.cmd() {
                    macho::LC_LOAD_DYLIB => "LC_LOAD_DYLIB",
                    macho::LC_LOAD_WEAK_DYLIB => "LC_LOAD_WEAK_DYLIB",
                    macho::LC_REEXPORT_DYLIB => "LC_REEXPORT_DYLIB",
                    macho::LC_LOAD_UPWARD_DYLIB => "LC_LOAD_UPWARD_DYLIB",
                    _ => "LC_LAZY_LOAD_DYLIB",
                };
                let name = command
                    .string(endian, load.dylib.name)
                    .map_err(|e| fail(&e.to_string()))?;
                dylib.loads.push((kind, text(name)));
            }
            LoadCommandVariant::Rpath(rpath) => {
                let path = command
                    .string(endian, rpath.path)
                    .map_err(|e| fail(&e.to_string()))?;
                dylib.rpaths.push(text(path));
            }
            LoadCommandVariant::BuildVersion(build, _)
                if build.platform.get(endian) == macho::PLATFORM_MACOS =>
            {
                let minos = build.minos.get(endian);
                dylib.min_macos = Some((minos.major(), minos.minor()));
            }
            _ => {}
        }
    }
    Ok(dylib)
}
