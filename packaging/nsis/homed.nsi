; HomedSetup-<v>-<variant>.exe, built by scripts/dist/nsis.ts with makensis (Debian's nsis):
;   makensis -DVERSION=… -DVARIANT=full|server|client -DWAITER=… -DLICENSE=… -DREADME=…
;            -DLICENSES=… [-DDEB=… -DDEBNAME=… -DDEBPACKAGE=…] -DOUTFILE=… homed.nsi
; Every variant installs waiter.exe (the terminal client) with the AGPL licence page first.
; full and client add the desktop app: a Start-menu entry running `waiter.exe desktop`, the web
; UI in an Edge or Chrome app window, logged in. homed itself needs Linux, so full and server
; bootstrap WSL2 as the original installer did (`wsl --install --no-distribution` when WSL is
; missing, then a restart), install Debian in WSL when no distribution is there, and install
; the bundled Linux .deb inside it with apt, as on a Linux host. Nothing is started without the
; person's consent: enabling the service is a question at the end.
; Built and listed by make dist, not run: this build machine has no Windows.

Unicode true
Target amd64-unicode
SetCompressor zlib
RequestExecutionLevel admin
ManifestDPIAware true

!include MUI2.nsh
!include LogicLib.nsh

Name "homed ${VERSION} (${VARIANT})"
OutFile "${OUTFILE}"
InstallDir "$PROGRAMFILES64\homed"
InstallDirRegKey HKLM "Software\homed" "InstallDir"
VIProductVersion "${VERSION}.0"
VIAddVersionKey "ProductName" "homed"
VIAddVersionKey "ProductVersion" "${VERSION}"
VIAddVersionKey "FileDescription" "homed ${VARIANT} installer"
VIAddVersionKey "LegalCopyright" "AGPL-3.0-only"
VIAddVersionKey "FileVersion" "${VERSION}"

!define UNINSTALL_KEY "Software\Microsoft\Windows\CurrentVersion\Uninstall\homed"
!define DISTRO "Debian"

!insertmacro MUI_PAGE_WELCOME
!insertmacro MUI_PAGE_LICENSE "${LICENSE}"
!insertmacro MUI_PAGE_DIRECTORY
!insertmacro MUI_PAGE_INSTFILES
!insertmacro MUI_PAGE_FINISH
!insertmacro MUI_UNPAGE_CONFIRM
!insertmacro MUI_UNPAGE_INSTFILES
!insertmacro MUI_LANGUAGE "English"

; Installed for every user of the machine (Program Files, the all-users Start menu).
Function .onInit
  SetShellVarContext all
FunctionEnd

Function un.onInit
  SetShellVarContext all
FunctionEnd

Section "homed" SecMain
  SetOutPath "$INSTDIR"
  File "/oname=waiter.exe" "${WAITER}"
  File "/oname=LICENSE.txt" "${LICENSE}"
  File "/oname=README.md" "${README}"
  SetOutPath "$INSTDIR\licenses"
  File /r "${LICENSES}\*.*"
  SetOutPath "$INSTDIR"
  WriteUninstaller "$INSTDIR\uninstall.exe"
  WriteRegStr HKLM "Software\homed" "InstallDir" "$INSTDIR"
  WriteRegStr HKLM "Software\homed" "Variant" "${VARIANT}"
  WriteRegStr HKLM "${UNINSTALL_KEY}" "DisplayName" "homed (${VARIANT})"
  WriteRegStr HKLM "${UNINSTALL_KEY}" "DisplayVersion" "${VERSION}"
  WriteRegStr HKLM "${UNINSTALL_KEY}" "Publisher" "the homed contributors"
  WriteRegStr HKLM "${UNINSTALL_KEY}" "UninstallString" '"$INSTDIR\uninstall.exe"'
  WriteRegDWORD HKLM "${UNINSTALL_KEY}" "NoModify" 1
  WriteRegDWORD HKLM "${UNINSTALL_KEY}" "NoRepair" 1
SectionEnd

!if "${VARIANT}" != "server"
Section "Desktop app" SecDesktop
  ; The desktop app is the waiter's `desktop` command; it opens Edge or Chrome in app mode.
  CreateDirectory "$SMPROGRAMS\homed"
  CreateShortcut "$SMPROGRAMS\homed\homed.lnk" "$INSTDIR\waiter.exe" "desktop" "$INSTDIR\waiter.exe" 0 SW_SHOWMINIMIZED
  CreateShortcut "$SMPROGRAMS\homed\Uninstall homed.lnk" "$INSTDIR\uninstall.exe"
SectionEnd
!endif

!ifdef DEB
Var wslOk

Section "homed in WSL2" SecWsl
  ; 1. WSL itself: `wsl --status` fails when it is not installed.
  DetailPrint "Checking for WSL2…"
  nsExec::ExecToLog '"$SYSDIR\wsl.exe" --status'
  Pop $wslOk
  ${If} $wslOk != 0
    DetailPrint "Installing WSL2 (wsl --install --no-distribution)…"
    nsExec::ExecToLog '"$SYSDIR\wsl.exe" --install --no-distribution'
    Pop $0
    ${If} $0 != 0
      MessageBox MB_ICONSTOP "Installing WSL2 failed (exit $0). Enable virtualisation and run this installer again."
      Abort
    ${EndIf}
    SetRebootFlag true
    MessageBox MB_ICONINFORMATION "WSL2 is installed. Restart Windows, then run this installer again to install homed inside it."
    Return
  ${EndIf}
  ; 2. A distribution to install into: Debian, unless it is already there.
  nsExec::ExecToLog '"$SYSDIR\wsl.exe" -d ${DISTRO} -u root -- true'
  Pop $0
  ${If} $0 != 0
    DetailPrint "Installing ${DISTRO} in WSL2…"
    nsExec::ExecToLog '"$SYSDIR\wsl.exe" --install -d ${DISTRO} --no-launch'
    Pop $0
    nsExec::ExecToLog '"$SYSDIR\wsl.exe" -d ${DISTRO} -u root -- true'
    Pop $0
    ${If} $0 != 0
      MessageBox MB_ICONSTOP "Could not start ${DISTRO} in WSL2 (exit $0). Open it once from the Start menu, then run this installer again."
      Abort
    ${EndIf}
  ${EndIf}
  ; 3. The Linux package, installed by apt inside the distribution as on a Linux host.
  SetOutPath "$INSTDIR\linux"
  ; The .deb is zstd already: zlib would spend a minute gaining nothing.
  SetCompress off
  File "/oname=${DEBNAME}" "${DEB}"
  SetCompress auto
  DetailPrint "Installing ${DEBNAME} inside ${DISTRO}…"
  nsExec::ExecToLog '"$SYSDIR\wsl.exe" -d ${DISTRO} -u root -- apt-get update -qq'
  Pop $0
  nsExec::ExecToLog '"$SYSDIR\wsl.exe" -d ${DISTRO} -u root --cd "$INSTDIR\linux" -- env DEBIAN_FRONTEND=noninteractive apt-get install -y ./${DEBNAME}'
  Pop $0
  ${If} $0 != 0
    MessageBox MB_ICONSTOP "apt could not install ${DEBNAME} in ${DISTRO} (exit $0); see the details above."
    Abort
  ${EndIf}
  ; 4. Start it only when the person says so: systemd in WSL, the unit enabled, WSL restarted.
  MessageBox MB_YESNO|MB_ICONQUESTION "homed is installed in WSL2 (${DISTRO}). Start it now and whenever WSL starts?" IDNO done
    nsExec::ExecToLog `"$SYSDIR\wsl.exe" -d ${DISTRO} -u root -- sh -c "grep -q '^systemd=true' /etc/wsl.conf 2>/dev/null || printf '[boot]\nsystemd=true\n' >> /etc/wsl.conf"`
    Pop $0
    nsExec::ExecToLog '"$SYSDIR\wsl.exe" -d ${DISTRO} -u root -- systemctl enable homed.service'
    Pop $0
    nsExec::ExecToLog '"$SYSDIR\wsl.exe" --terminate ${DISTRO}'
    Pop $0
    nsExec::ExecToLog '"$SYSDIR\wsl.exe" -d ${DISTRO} -u root -- systemctl start homed.service'
    Pop $0
  done:
SectionEnd
!endif

Section "Uninstall"
  !ifdef DEB
    MessageBox MB_YESNO|MB_ICONQUESTION "Remove the homed package from WSL2 (${DISTRO}) too? Its data in /var/lib/homed is kept." IDNO keep
      nsExec::ExecToLog '"$SYSDIR\wsl.exe" -d ${DISTRO} -u root -- apt-get remove -y ${DEBPACKAGE}'
      Pop $0
    keep:
  !endif
  Delete "$SMPROGRAMS\homed\homed.lnk"
  Delete "$SMPROGRAMS\homed\Uninstall homed.lnk"
  RMDir "$SMPROGRAMS\homed"
  Delete "$INSTDIR\waiter.exe"
  Delete "$INSTDIR\LICENSE.txt"
  Delete "$INSTDIR\README.md"
  RMDir /r "$INSTDIR\licenses"
  RMDir /r "$INSTDIR\linux"
  Delete "$INSTDIR\uninstall.exe"
  RMDir "$INSTDIR"
  DeleteRegKey HKLM "${UNINSTALL_KEY}"
  DeleteRegKey HKLM "Software\homed"
SectionEnd
