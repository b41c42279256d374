/** Where the dashboard's pages live (cookies are scoped to DASHBOARD). */
export const DASHBOARD = '/dashboard';

export const dashboardPaths = {
  home: DASHBOARD,
  signIn: `${DASHBOARD}/sign-in`,
  signOut: `${DASHBOARD}/sign-out`,
  /** A section of one organization's dashboard, e.g. section(org, 'api-keys'). */
  section: (organizationId: string, section: string) => `${DASHBOARD}/${organizationId}/${section}`,
};
