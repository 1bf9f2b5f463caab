/** A project's page (#/p/<id>): its memory mode, instructions and chats, and "New chat" in it. */
import { formatCount } from '../../core/base/numbers';
import { useEffect, useState } from 'react';
import { useEngineQuery } from '../hooks';
import { useUi } from '../uiStore';
import { useStartConversation } from './ConversationList';
import { MEMORY_MODE_TEXT, ProjectDialog } from './ProjectDialog';

export function ProjectView({ projectId }: { readonly projectId: string }) {
  const projects = useEngineQuery((q) => q.projects());
  const conversations = useEngineQuery((q) => q.conversations());
  const startNew = useStartConversation();
  const select = useUi((s) => s.selectConversation);
  const openExplorer = useUi((s) => s.openExplorer);
  const setPageDefault = useUi((s) => s.setProjectPageDefault);
  const [editing, setEditing] = useState(false);
  const walled = projects.data?.find((p) => p.id === projectId)?.memory === 'project-only';
  // On a project-only project's page, the memory views open on its memory (its wall is the point).
  useEffect(() => {
    setPageDefault(walled ? projectId : null);
    return () => setPageDefault(null);
  }, [walled, projectId, setPageDefault]);
  if (!projects.data)
    return (
      <p className="muted" role="status">
        Opening the project…
      </p>
    );
  const project = projects.data.find((p) => p.id === projectId);
  if (!project)
    return (
      <p className="muted" role="status" data-testid="project-missing">
        This project no longer exists. Its address may be from another memory.
      </p>
    );
  const chats = (conversations.data ?? []).filter((c) => c.projectId === project.id);
  return (
    <section className="project-view" aria-labelledby="project-title" data-testid="project-view">
      <h2 id="project-title">
        {project.name}
        {project.archived ? ' (archived)' : ''}
      </h2>
      <p data-testid="project-memory">
        {MEMORY_MODE_TEXT[project.memory]}
        {project.memory === 'project-only'
          ? project.useProfile
            ? ' Answers may also use your profile.'
            : ' Answers do not use your profile.'
          : ''}
      </p>
      {project.instructions ? (
        <>
          <h3>Instructions</h3>
          <p className="project-instructions">{project.instructions}</p>
        </>
      ) : (
        <p className="muted">No instructions.</p>
      )}
      <div className="actions">
        <button type="button" className="primary" onClick={() => void startNew(project.id)}>
          New chat in {project.name}
        </button>
        <button type="button" onClick={() => setEditing(true)}>
          Project settings
        </button>
        <button type="button" onClick={() => openExplorer('memcells', null, project.id)}>
          Memory of this project
        </button>
      </div>
      <h3>Chats</h3>
      {chats.length === 0 ? (
        <p className="muted">No chats yet.</p>
      ) : (
        <ul className="project-chats">
          {chats.map((c) => (
            <li key={c.id}>
              <button type="button" className="link" onClick={() => select(c.id)}>
                {c.title}
              </button>{' '}
              <span className="muted">{formatCount(c.messageCount)} messages</span>
            </li>
          ))}
        </ul>
      )}
      {editing && <ProjectDialog project={project} onClose={() => setEditing(false)} />}
    </section>
  );
}
