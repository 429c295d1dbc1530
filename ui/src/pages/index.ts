// The areas of the admin, in sidebar order. To add an area: write pages/<area>/<Area>Page.tsx
// (a component taking `route`, the path segments after the area's own) and add one line here.
// `adminOnly` areas are listed only for users with the admin role (and those `openTo` lets in).
import type { ComponentType } from 'react';
import type { Rights } from '../components/rights';
import { ApplicationsPage } from './applications/ApplicationsPage';
import { BackupsPage } from './backups/BackupsPage';
import { ConfigPage } from './config/ConfigPage';
import { EndpointPermissionsPage } from './endpoint-permissions/EndpointPermissionsPage';
import { FileText, Folder, Home, Inbox, Image, Link2, Shapes, Tags, ShieldCheck, Trash2, Users, Webhook, DatabaseBackup, UserRound, SlidersHorizontal, LockKeyhole, KeyRound, History } from '../components/icons';
import { DraftsPage } from './drafts/DraftsPage';
import { FoldersPage } from './folders/FoldersPage';
import { HistoryPage } from './history/HistoryPage';
import { HomePage } from './home/HomePage';
import { MediaPage } from './media/MediaPage';
import { ModelPage } from './model/ModelPage';
import { ObjectsPage } from './objects/ObjectsPage';
import { ProfilePage } from './profile/ProfilePage';
import { RelationsPage } from './relations/RelationsPage';
import { RolesPage } from './roles/RolesPage';
import { TermsPage } from './terms/TermsPage';
import { TrashPage } from './trash/TrashPage';
import { UsersPage } from './users/UsersPage';
import { WebhooksPage } from './webhooks/WebhooksPage';

export interface PageDef {
  path: string;
  label: string;
  icon: ComponentType<{ size?: number; 'aria-hidden'?: boolean }>;
  component: ComponentType<{ route: string[] }>;
  /** Only admins use it (the API answers 403 to anyone else): not shown to others. */
  adminOnly?: boolean;
  /** Reached from elsewhere (the user's name in the top bar), not from the sidebar. */
  hidden?: boolean;
  /** Who else may use it (besides admins), by their rights: listed and opened for them only. */
  openTo?: (rights: Rights) => boolean;
}

/** Whether the user may open the area (admins open every one). */
export function mayOpen(page: PageDef, rights: Rights): boolean {
  return rights.admin || (page.openTo ? page.openTo(rights) : !page.adminOnly);
}

/** Anyone who may move some objects to the trash restores them from it (their own ones with `delete:own`). */
const mayTrashSome = (rights: Rights) => Object.values(rights.byType).some((actions) => actions.includes('delete') || actions.includes('delete:own'));

export const pages: PageDef[] = [
  { path: 'home', label: 'Home', icon: Home, component: HomePage },
  { path: 'objects', label: 'Objects', icon: FileText, component: ObjectsPage },
  { path: 'folders', label: 'Folders', icon: Folder, component: FoldersPage },
  { path: 'media', label: 'Media', icon: Image, component: MediaPage },
  { path: 'trash', label: 'Trash', icon: Trash2, component: TrashPage, adminOnly: true, openTo: mayTrashSome },
  { path: 'users', label: 'Users', icon: Users, component: UsersPage, adminOnly: true },
  { path: 'roles', label: 'Roles', icon: ShieldCheck, component: RolesPage, adminOnly: true },
  { path: 'relations', label: 'Relations', icon: Link2, component: RelationsPage, adminOnly: true },
  { path: 'model', label: 'Object types', icon: Shapes, component: ModelPage, adminOnly: true },
  { path: 'terms', label: 'Categories & tags', icon: Tags, component: TermsPage, adminOnly: true },
  { path: 'history', label: 'History', icon: History, component: HistoryPage, adminOnly: true },
  { path: 'webhooks', label: 'Webhooks', icon: Webhook, component: WebhooksPage, adminOnly: true },
  { path: 'applications', label: 'API keys', icon: KeyRound, component: ApplicationsPage, adminOnly: true },
  { path: 'config', label: 'Configuration', icon: SlidersHorizontal, component: ConfigPage, adminOnly: true },
  { path: 'endpoint-permissions', label: 'Endpoint permissions', icon: LockKeyhole, component: EndpointPermissionsPage, adminOnly: true },
  { path: 'backups', label: 'Backups', icon: DatabaseBackup, component: BackupsPage, adminOnly: true },
  { path: 'profile', label: 'My account', icon: UserRound, component: ProfilePage, hidden: true },
  // Reached from Home's draft lists ("All drafts").
  { path: 'drafts', label: 'Drafts', icon: Inbox, component: DraftsPage, hidden: true },
];
