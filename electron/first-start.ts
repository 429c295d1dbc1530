// The words the desktop app shows about logging in: after the first start, and on demand from the
// menu while the generated password file is still there.
export interface LoginHint {
  title: string;
  message: string;
  detail: string;
}

export function loginHint(input: { username: string; password: string | null; adminUrl: string; passwordFile: string; firstStart: boolean }): LoginHint {
  const title = input.firstStart ? 'Welcome to Folio' : 'First admin password';
  if (input.password === null) {
    return {
      title,
      message: `Log in as "${input.username}".`,
      detail: `No generated password is stored any more (${input.passwordFile} is gone). Use the password you set.`,
    };
  }
  return {
    title,
    message: `Log in as "${input.username}" with the password ${input.password}`,
    detail:
      `${input.firstStart ? 'An admin account was created for you. ' : ''}The password is also stored in ${input.passwordFile}. ` +
      `Change it after logging in, then delete that file. The admin UI is at ${input.adminUrl}.`,
  };
}
