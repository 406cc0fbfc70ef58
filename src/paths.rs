//! Where ragger keeps its files: XDG base directories via `directories`.
//! data: database, models, runtime library; config: config.toml;
//! state: the run lock.

use std::path::{Path, PathBuf};

use anyhow::{anyhow, Result};

/// File name of the default local memory model inside `models/`.
pub const DEFAULT_GGUF: &str = "SmolLM2-135M-Instruct.Q4_1.gguf";
/// Folder name of the default embedder inside `models/`.
pub const DEFAULT_EMBEDDER_DIR: &str = "all-MiniLM-L6-v2";

#[derive(Clone, Debug)]
pub struct Paths {
    pub data: PathBuf,
    pub config: PathBuf,
    pub state: PathBuf,
}

impl Paths {
    pub fn from_env() -> Result<Paths> {
        let dirs = directories::ProjectDirs::from("", "", "ragger")
            .ok_or_else(|| anyhow!("cannot find a home directory (set HOME or the XDG_* variables)"))?;
        let data = dirs.data_dir().to_path_buf();
        let state = dirs.state_dir().map(Path::to_path_buf).unwrap_or_else(|| data.join("state"));
        Ok(Paths { data, config: dirs.config_dir().to_path_buf(), state })
    }

    pub fn config_file(&self) -> PathBuf {
        self.config.join("config.toml")
    }
    pub fn default_db(&self) -> PathBuf {
        self.data.join("ragger.db")
    }
    pub fn models(&self) -> PathBuf {
        self.data.join("models")
    }
    pub fn default_gguf(&self) -> PathBuf {
        self.models().join(DEFAULT_GGUF)
    }
    pub fn default_embedder_dir(&self) -> PathBuf {
        self.models().join(DEFAULT_EMBEDDER_DIR)
    }
    /// Folder searched for `libonnxruntime.so*` after the config and ORT_DYLIB_PATH.
    pub fn lib(&self) -> PathBuf {
        self.data.join("lib")
    }
}

/// Create a folder (and parents) with mode 0700.
pub fn create_private_dir(dir: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::DirBuilderExt;
    std::fs::DirBuilder::new().recursive(true).mode(0o700).create(dir)
}

/// Create (or truncate) a file only its owner can read: mode 0600 from the
/// start, and tightened if the file already existed with a wider mode.
pub fn create_private_file(path: &Path) -> std::io::Result<std::fs::File> {
    use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
    let f = std::fs::OpenOptions::new().write(true).create(true).truncate(true).mode(0o600).open(path)?;
    f.set_permissions(std::fs::Permissions::from_mode(0o600))?;
    Ok(f)
}

/// Whether a file's group or other users may read it.
pub fn readable_by_others(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).map(|m| m.permissions().mode() & 0o044 != 0).unwrap_or(false)
}

/// The command that fetches the models and the runtime, as this ragger was
/// installed: the script of a source checkout the binary was built in, the
/// copy the Debian package ships (`/usr/share/ragger/fetch-models.sh`), else
/// where to find it.
pub fn fetch_command() -> String {
    let exe = std::env::current_exe().ok().and_then(|p| p.canonicalize().ok());
    if let Some(exe) = exe {
        // A source checkout: <root>/target/<profile>/ragger.
        if let Some(script) =
            exe.ancestors().skip(1).take(4).map(|d| d.join("scripts/fetch-models.sh")).find(|p| p.is_file())
        {
            return script.display().to_string();
        }
        // A package: <prefix>/bin/ragger and <prefix>/share/ragger/fetch-models.sh.
        if let Some(prefix) = exe.parent().and_then(Path::parent) {
            let script = prefix.join("share/ragger/fetch-models.sh");
            if script.is_file() {
                return script.display().to_string();
            }
        }
    }
    "scripts/fetch-models.sh from ragger's source".to_string()
}
